import { describe, expect, it } from 'vitest';
import { matchChoice, withChoicePrompt } from './choices';
import { restoreStop } from './wire-mapping';

describe('restoreStop', () => {
  it('puts back the stop string the server names, and nothing after an end-of-sequence token', () => {
    expect(restoreStop('<action>go', 'stop', '</action>', ['</action>', '</plan>'])).toBe(
      '<action>go</action>',
    );
    expect(restoreStop('<action>go', 'stop', null, ['</action>'])).toBe('<action>go');
    expect(restoreStop('<action>go', 'stop', 2, ['</action>'])).toBe('<action>go');
  });

  it('guesses only with a single stop string and no stop_reason field', () => {
    expect(restoreStop('<action>go', 'stop', undefined, ['</action>'])).toBe('<action>go</action>');
    expect(restoreStop('<action>go', 'stop', undefined, ['</action>', '</plan>'])).toBe('<action>go');
  });

  it('leaves text that already ends with a stop string, or was cut by length, alone', () => {
    expect(restoreStop('<action>go</action>', 'stop', '</action>', ['</action>'])).toBe(
      '<action>go</action>',
    );
    expect(restoreStop('<action>go', 'length', undefined, ['</action>'])).toBe('<action>go');
  });
});

describe('choices', () => {
  const choices = ['go north', 'take apple 1 from countertop 1'];

  it('matches verbatim, loosely, or by number', () => {
    expect(matchChoice('go north', choices)).toBe(0);
    expect(matchChoice('  "Take apple 1 from  countertop 1."', choices)).toBe(1);
    expect(matchChoice('2', choices)).toBe(1);
    expect(matchChoice('1. go north', choices)).toBe(0);
  });

  it('rejects answers that name no option or the wrong one', () => {
    expect(matchChoice('go south', choices)).toBeUndefined();
    expect(matchChoice('3', choices)).toBeUndefined();
    expect(matchChoice('1. take apple 1 from countertop 1', choices)).toBeUndefined();
  });

  it('lists the options in the last user message', () => {
    const messages = withChoicePrompt([{ role: 'user', content: 'What next?' }], choices);
    expect(messages).toHaveLength(1);
    expect(messages[0]!.content).toBe(
      'What next?\n\nAnswer with exactly one of these options, copied verbatim, and nothing else:\n1. go north\n2. take apple 1 from countertop 1',
    );
  });
});
