// Strict parsing of model output into plan, thought and action. It never throws: anything that
// is not exactly the expected tagged form comes back as a format error with a code and a reason.
import type { Plan } from '@pilotrl/core';
import { clip, type PlanTextErrorCode, parsePlanSteps } from './plan-text';

export type TagName = 'global_plan' | 'thought' | 'action';

export type FormatErrorCode =
  | 'empty_output'
  | 'malformed_tag'
  | 'unexpected_tag'
  | 'nested_tag'
  | 'unopened_tag'
  | 'unclosed_tag'
  | 'duplicate_tag'
  | 'missing_tag'
  | 'wrong_order'
  | 'text_outside_tags'
  | 'empty_field'
  | 'multiline_action'
  | 'action_too_long'
  | PlanTextErrorCode;

export interface FormatError {
  ok: false;
  code: FormatErrorCode;
  message: string;
}

export type ActParseResult = { ok: true; thought: string; action: string } | FormatError;
export type PlanParseResult = { ok: true; steps: Plan } | FormatError;

export interface ParseOptions {
  /** Longest accepted action, in characters. */
  maxActionChars?: number;
  /** Most steps a plan may have. */
  maxPlanSteps?: number;
}

/** Names that count as tags. Other angle-bracket text (`<3`, `<b>`) is ordinary content. */
const knownTags = new Set(['global_plan', 'thought', 'action', 'think', 'plan']);
const tagPattern = /<\s*(\/?)\s*([A-Za-z_]+)\s*>/g;

interface Block {
  name: TagName;
  content: string;
}

const fail = (code: FormatErrorCode, message: string): FormatError => ({ ok: false, code, message });

/** Splits `text` into the expected tag blocks, in the expected order, with nothing else around. */
function readBlocks(text: string, expected: readonly TagName[]): { ok: true; blocks: Block[] } | FormatError {
  if (text.trim().length === 0) return fail('empty_output', 'the output is empty');
  const blocks: Block[] = [];
  let open: { name: TagName; contentStart: number } | null = null;
  let lastEnd = 0;
  for (const match of text.matchAll(tagPattern)) {
    const raw = match[0];
    const closing = match[1] === '/';
    const name = (match[2] ?? '').toLowerCase();
    if (!knownTags.has(name)) continue;
    const canonical = closing ? `</${name}>` : `<${name}>`;
    if (raw !== canonical) {
      return fail('malformed_tag', `tag ${JSON.stringify(raw)} must be written exactly ${canonical}`);
    }
    if (!(expected as readonly string[]).includes(name)) {
      return fail(
        'unexpected_tag',
        `<${name}> is not part of this answer; expected ${expected.map((tag) => `<${tag}>`).join(' then ')}`,
      );
    }
    const tag = name as TagName;
    const index = match.index ?? 0;
    if (!closing) {
      if (open !== null)
        return fail('nested_tag', `<${tag}> opens inside <${open.name}>; close <${open.name}> first`);
      if (blocks.some((block) => block.name === tag))
        return fail('duplicate_tag', `<${tag}> appears more than once`);
      const between = text.slice(lastEnd, index);
      if (between.trim().length > 0) {
        return fail('text_outside_tags', `text outside the tags: ${clip(between)}`);
      }
      open = { name: tag, contentStart: index + raw.length };
    } else {
      if (open === null) return fail('unopened_tag', `</${tag}> closes a tag that was never opened`);
      if (open.name !== tag) return fail('unclosed_tag', `<${open.name}> is closed by </${tag}>`);
      blocks.push({ name: tag, content: text.slice(open.contentStart, index) });
      open = null;
      lastEnd = index + raw.length;
    }
  }
  if (open !== null) return fail('unclosed_tag', `<${open.name}> is never closed`);
  if (blocks.length === 0) {
    const first = expected[0]!;
    return fail('missing_tag', `no <${first}>...</${first}> found in ${clip(text)}`);
  }
  const trailing = text.slice(lastEnd);
  if (trailing.trim().length > 0)
    return fail('text_outside_tags', `text outside the tags: ${clip(trailing)}`);
  for (const tag of expected) {
    if (!blocks.some((block) => block.name === tag))
      return fail('missing_tag', `<${tag}>...</${tag}> is missing`);
  }
  for (const [position, block] of blocks.entries()) {
    if (block.name !== expected[position]) {
      return fail(
        'wrong_order',
        `the blocks must come in the order ${expected.map((tag) => `<${tag}>`).join(', ')}`,
      );
    }
  }
  return { ok: true, blocks };
}

/** Parses `<thought>...</thought><action>...</action>`; the action must be one non-empty line. */
export function parseActOutput(text: string, options: ParseOptions = {}): ActParseResult {
  const read = readBlocks(text, ['thought', 'action']);
  if (!read.ok) return read;
  const [thoughtBlock, actionBlock] = read.blocks as [Block, Block];
  const thought = thoughtBlock.content.trim();
  const action = actionBlock.content.trim();
  if (thought.length === 0) return fail('empty_field', 'the thought is empty');
  if (action.length === 0) return fail('empty_field', 'the action is empty');
  if (action.includes('\n'))
    return fail('multiline_action', `the action must be a single line: ${clip(action)}`);
  const maxActionChars = options.maxActionChars ?? 200;
  if (action.length > maxActionChars) {
    return fail(
      'action_too_long',
      `the action has ${action.length} characters; at most ${maxActionChars} are allowed`,
    );
  }
  return { ok: true, thought, action };
}

/** Parses `<global_plan>Step 1: ...\nStep 2: ...</global_plan>`. */
export function parsePlanOutput(text: string, options: ParseOptions = {}): PlanParseResult {
  const read = readBlocks(text, ['global_plan']);
  if (!read.ok) return read;
  const steps = parsePlanSteps(read.blocks[0]!.content, { maxSteps: options.maxPlanSteps ?? 20 });
  if (!steps.ok) return fail(steps.code, steps.message);
  return steps;
}
