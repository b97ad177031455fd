// A model directory's chat template (`chat_template.jinja`, or `chat_template` in
// `tokenizer_config.json`), rendered for system, user and assistant messages without a Jinja engine:
// the two families we run are recognised by their markers and rendered as their templates do,
// Qwen3's (ChatML with its thinking block: an empty one before the last assistant reply after the
// last user turn, and after the generation prompt when enable_thinking is false) and Llama 3's
// (header ids, trimmed contents, <|eot_id|>, the bos token first). Any other template is refused
// naming the file, since rendering it differently from its Jinja would train the model on a format
// it was not taught.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type ChatMessage, CheckpointError } from '@pilotrl/core';
import { z } from 'zod';

export const TOKENIZER_CONFIG_FILE = 'tokenizer_config.json';
export const CHAT_TEMPLATE_FILE = 'chat_template.jinja';

export type ChatTemplateFamily = 'qwen3' | 'llama3';

export interface RenderOptions {
  /** End with the prompt of the assistant's reply (default true). */
  addGenerationPrompt?: boolean;
  /** Qwen3: false writes an empty thinking block after the generation prompt. */
  enableThinking?: boolean;
}

export interface HfChatTemplate {
  readonly family: ChatTemplateFamily;
  /** The text the template renders for `messages`. */
  render(messages: readonly ChatMessage[], options?: RenderOptions): string;
  /** The token that ends an assistant reply (`<|im_end|>`, `<|eot_id|>`). */
  readonly endOfTurn: string;
}

const tokenText = z.union([z.string(), z.looseObject({ content: z.string() })]).nullish();
const tokenizerConfigSchema = z.looseObject({
  chat_template: z
    .union([z.string(), z.array(z.looseObject({ name: z.string(), template: z.string() }))])
    .nullish(),
  bos_token: tokenText,
});

/** Recognises a template's family by the markers its Jinja writes, or undefined. */
export function templateFamily(template: string): ChatTemplateFamily | undefined {
  if (
    template.includes('<|im_start|>') &&
    template.includes('last_query_index') &&
    template.includes('<think>')
  ) {
    return 'qwen3';
  }
  // Llama 3.1 and later add a dated system block ("Cutting Knowledge Date") that is not rendered here.
  if (
    template.includes('<|start_header_id|>') &&
    template.includes('<|eot_id|>') &&
    template.includes('bos_token') &&
    !template.includes('Cutting Knowledge')
  ) {
    return 'llama3';
  }
  return undefined;
}

/** Python's str.strip(chars) for a set of characters. */
function strip(text: string, chars: string, side: 'both' | 'start' | 'end' = 'both'): string {
  let start = 0;
  let end = text.length;
  if (side !== 'end') while (start < end && chars.includes(text[start]!)) start++;
  if (side !== 'start') while (end > start && chars.includes(text[end - 1]!)) end--;
  return text.slice(start, end);
}

function renderQwen3(messages: readonly ChatMessage[], options: RenderOptions): string {
  let out = '';
  if (messages[0]?.role === 'system') out += `<|im_start|>system\n${messages[0].content}<|im_end|>\n`;
  // The last user turn that is not a tool response: replies after it keep their thinking block.
  let lastQuery = messages.length - 1;
  for (let i = messages.length - 1; i >= 0; i--) {
    const { role, content } = messages[i]!;
    if (role === 'user' && !(content.startsWith('<tool_response>') && content.endsWith('</tool_response>'))) {
      lastQuery = i;
      break;
    }
  }
  messages.forEach((message, i) => {
    if (message.role === 'user' || (message.role === 'system' && i > 0)) {
      out += `<|im_start|>${message.role}\n${message.content}<|im_end|>\n`;
    } else if (message.role === 'assistant') {
      let content = message.content;
      let reasoning = '';
      if (content.includes('</think>')) {
        reasoning = strip(
          strip(content.split('</think>')[0]!, '\n', 'end').split('<think>').at(-1)!,
          '\n',
          'start',
        );
        content = strip(content.split('</think>').at(-1)!, '\n', 'start');
      }
      if (i > lastQuery && (i === messages.length - 1 || reasoning !== '')) {
        out += `<|im_start|>assistant\n<think>\n${strip(reasoning, '\n')}\n</think>\n\n${strip(content, '\n', 'start')}`;
      } else {
        out += `<|im_start|>assistant\n${content}`;
      }
      out += '<|im_end|>\n';
    }
  });
  if (options.addGenerationPrompt !== false) {
    out += '<|im_start|>assistant\n';
    if (options.enableThinking === false) out += '<think>\n\n</think>\n\n';
  }
  return out;
}

// Python's str.strip() with no argument: Unicode whitespace, as Jinja's trim filter uses it.
const trim = (text: string) => text.replace(/^\p{White_Space}+|\p{White_Space}+$/gu, '');

function renderLlama3(messages: readonly ChatMessage[], options: RenderOptions, bos: string): string {
  let out = '';
  messages.forEach((message, i) => {
    const turn = `<|start_header_id|>${message.role}<|end_header_id|>\n\n${trim(message.content)}<|eot_id|>`;
    out += i === 0 ? bos + turn : turn;
  });
  if (options.addGenerationPrompt !== false) out += '<|start_header_id|>assistant<|end_header_id|>\n\n';
  return out;
}

/** Reads a model directory's chat template; refuses one of a family we do not render, naming its file. */
export async function readChatTemplate(dir: string): Promise<HfChatTemplate> {
  const configFile = join(dir, TOKENIZER_CONFIG_FILE);
  let config: z.output<typeof tokenizerConfigSchema> = {};
  if (existsSync(configFile)) {
    let json: unknown;
    try {
      json = JSON.parse(await readFile(configFile, 'utf8'));
    } catch (error) {
      throw new CheckpointError(`${configFile}: not JSON (${(error as Error).message})`, { cause: error });
    }
    const parsed = tokenizerConfigSchema.safeParse(json);
    if (!parsed.success)
      throw new CheckpointError(`${configFile}: chat_template or bos_token is not a string`);
    config = parsed.data;
  }
  const jinjaFile = join(dir, CHAT_TEMPLATE_FILE);
  let template: string | undefined;
  let source = configFile;
  if (existsSync(jinjaFile)) {
    template = await readFile(jinjaFile, 'utf8');
    source = jinjaFile;
  } else if (typeof config.chat_template === 'string') {
    template = config.chat_template;
  } else if (Array.isArray(config.chat_template)) {
    template = config.chat_template.find((t) => t.name === 'default')?.template;
  }
  if (template === undefined) {
    throw new CheckpointError(
      `${dir}: no chat template (neither ${CHAT_TEMPLATE_FILE} nor chat_template in ${TOKENIZER_CONFIG_FILE})`,
    );
  }
  const family = templateFamily(template);
  if (family === undefined) {
    throw new CheckpointError(
      `${source}: chat_template is not one rendered here (Qwen3's or Llama 3's); other templates need a Jinja engine`,
    );
  }
  if (family === 'qwen3') {
    return {
      family,
      endOfTurn: '<|im_end|>',
      render: (messages, options = {}) => renderQwen3(messages, options),
    };
  }
  const bos = typeof config.bos_token === 'string' ? config.bos_token : config.bos_token?.content;
  if (bos === undefined)
    throw new CheckpointError(`${configFile}: bos_token is missing, which Llama 3's template writes first`);
  return {
    family,
    endOfTurn: '<|eot_id|>',
    render: (messages, options = {}) => renderLlama3(messages, options, bos),
  };
}
