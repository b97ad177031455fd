import { describe, expect, it } from 'vitest';
import { parseActOutput, parsePlanOutput } from './output-parser';
import { formatPlan, parsePlanSteps } from './plan-text';

describe('parseActOutput', () => {
  it('reads a well-formed thought and action', () => {
    const parsed = parseActOutput('<thought>Step 1: the key is east.</thought><action>go east</action>');
    expect(parsed).toEqual({ ok: true, thought: 'Step 1: the key is east.', action: 'go east' });
  });

  it('allows whitespace around and between the blocks and trims the fields', () => {
    const parsed = parseActOutput('\n  <thought>\n look first \n</thought>\n\n<action> look </action>\n');
    expect(parsed).toEqual({ ok: true, thought: 'look first', action: 'look' });
  });

  it('treats angle brackets that are not tags as content', () => {
    const parsed = parseActOutput('<thought>3 <4 and <b>bold</b></thought><action>look</action>');
    expect(parsed).toEqual({ ok: true, thought: '3 <4 and <b>bold</b>', action: 'look' });
  });

  const malformed: [string, string, string][] = [
    ['empty output', '', 'empty_output'],
    ['whitespace only', '   \n ', 'empty_output'],
    ['plain text', 'go east', 'missing_tag'],
    ['no thought', '<action>go east</action>', 'missing_tag'],
    ['no action', '<thought>go east</thought>', 'missing_tag'],
    ['action cut off by the length limit', '<thought>ok</thought><action>go ea', 'unclosed_tag'],
    ['thought never closed', '<thought>ok <action>go</action>', 'nested_tag'],
    ['stray closing tag', '</thought><thought>a</thought><action>b</action>', 'unopened_tag'],
    ['mismatched closing tag', '<thought>a</action>', 'unclosed_tag'],
    ['two actions', '<thought>a</thought><action>b</action><action>c</action>', 'duplicate_tag'],
    ['two thoughts', '<thought>a</thought><thought>b</thought><action>c</action>', 'duplicate_tag'],
    ['blocks swapped', '<action>go east</action><thought>why</thought>', 'wrong_order'],
    ['preamble before the tags', 'Sure! <thought>a</thought><action>b</action>', 'text_outside_tags'],
    ['text after the action', '<thought>a</thought><action>b</action> Done.', 'text_outside_tags'],
    ['text between blocks', '<thought>a</thought> then <action>b</action>', 'text_outside_tags'],
    ['upper-case tag', '<Thought>a</Thought><action>b</action>', 'malformed_tag'],
    ['space inside a tag', '<thought >a</thought><action>b</action>', 'malformed_tag'],
    [
      'a plan where an action is due',
      '<global_plan>Step 1: x</global_plan><thought>a</thought><action>b</action>',
      'unexpected_tag',
    ],
    ['a think tag', '<think>a</think><action>b</action>', 'unexpected_tag'],
    ['empty thought', '<thought>  </thought><action>b</action>', 'empty_field'],
    ['empty action', '<thought>a</thought><action>\n</action>', 'empty_field'],
    ['two-line action', '<thought>a</thought><action>go east\ngo west</action>', 'multiline_action'],
    ['overlong action', `<thought>a</thought><action>${'x'.repeat(201)}</action>`, 'action_too_long'],
    ['nested action', '<thought>a<action>b</action></thought>', 'nested_tag'],
  ];

  it.each(malformed)('flags %s without throwing', (_name, text, code) => {
    const parsed = parseActOutput(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.code).toBe(code);
      expect(parsed.message.length).toBeGreaterThan(0);
    }
  });

  it('honours a configured action length', () => {
    expect(parseActOutput('<thought>a</thought><action>abcdef</action>', { maxActionChars: 5 }).ok).toBe(
      false,
    );
    expect(parseActOutput('<thought>a</thought><action>abcde</action>', { maxActionChars: 5 }).ok).toBe(true);
  });

  it('never throws on arbitrary text', () => {
    const pieces = [
      '<thought>',
      '</thought>',
      '<action>',
      '</action>',
      '<global_plan>',
      'x',
      ' ',
      '\n',
      '<',
      '>',
      '/',
    ];
    let seed = 7;
    for (let sample = 0; sample < 500; sample += 1) {
      let text = '';
      for (let index = 0; index < 8; index += 1) {
        seed = (seed * 1103515245 + 12345) >>> 0;
        text += pieces[seed % pieces.length];
      }
      expect(() => parseActOutput(text)).not.toThrow();
      expect(() => parsePlanOutput(text)).not.toThrow();
    }
  });
});

describe('plans', () => {
  it('formats and parses Step N lists both ways', () => {
    const steps = ['go to the fridge', 'take the apple', 'put it on the table'];
    const text = formatPlan(steps);
    expect(text).toBe('Step 1: go to the fridge\nStep 2: take the apple\nStep 3: put it on the table');
    expect(parsePlanSteps(text)).toEqual({ ok: true, steps });
  });

  it('puts a multi-line step on one line', () => {
    expect(formatPlan(['walk\n  east'])).toBe('Step 1: walk east');
  });

  it('reads a tagged plan', () => {
    expect(parsePlanOutput('<global_plan>\nStep 1: a\n\nStep 2: b\n</global_plan>')).toEqual({
      ok: true,
      steps: ['a', 'b'],
    });
  });

  const malformedPlans: [string, string, string][] = [
    ['no tags', 'Step 1: a', 'missing_tag'],
    ['unclosed', '<global_plan>Step 1: a', 'unclosed_tag'],
    ['empty plan', '<global_plan> </global_plan>', 'no_steps'],
    ['a line that is not a step', '<global_plan>Step 1: a\nthen b</global_plan>', 'bad_step_line'],
    ['numbering from 0', '<global_plan>Step 0: a</global_plan>', 'step_numbering'],
    ['a gap in the numbering', '<global_plan>Step 1: a\nStep 3: b</global_plan>', 'step_numbering'],
    ['a repeated number', '<global_plan>Step 1: a\nStep 1: b</global_plan>', 'step_numbering'],
    ['an empty step', '<global_plan>Step 1: a\nStep 2:</global_plan>', 'empty_step'],
    ['text after the plan', '<global_plan>Step 1: a</global_plan> ok', 'text_outside_tags'],
    ['an action instead of a plan', '<thought>a</thought><action>b</action>', 'unexpected_tag'],
  ];

  it.each(malformedPlans)('flags %s', (_name, text, code) => {
    const parsed = parsePlanOutput(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.code).toBe(code);
  });

  it('limits the number of steps', () => {
    const plan = `<global_plan>${formatPlan(['a', 'b', 'c'])}</global_plan>`;
    const parsed = parsePlanOutput(plan, { maxPlanSteps: 2 });
    expect(parsed.ok === false && parsed.code).toBe('too_many_steps');
  });
});
