// Fuzzing helpers: random commands for an env's `step` (exact admissible commands, so episodes move
// on, near misses of them, and the empty, whitespace-only, 1 MB, unicode, control-character and
// lone-surrogate strings a model can produce; deterministic for a given generator), a run of them
// along random episodes, and the check that a refusal is a clean one.
import {
  EnvError,
  PilotRLError,
  type Rng,
  type StepResult,
  stepResultSchema,
  type TextEnv,
} from '@pilotrl/core';

let megabyte: string | undefined;
/** A 1 MB command, built the first time it is drawn. */
const oneMegabyte = () => {
  megabyte ??= 'go to the cabinet '.repeat(Math.ceil(2 ** 20 / 18));
  return megabyte;
};

const oddStrings = [
  '',
  ' \t \n ',
  'öffne die Tür 🚪 门 → ½ \u202eevil',
  '\u0000\u0007\u001b[31mlook\u001b[0m\r\b\u007f\u009b',
  '\ud800look',
  'look\udc00',
  '{"action": "look"}',
  'Action: look',
  '1',
  'NaN',
  'help',
  'inventory',
];

/** One character of an unusual kind: ASCII, accented, CJK, emoji, a control character. */
function oddCharacter(rng: Rng): string {
  const ranges: [number, number][] = [
    [0x20, 0x7e],
    [0x00, 0x1f],
    [0xc0, 0x24f],
    [0x4e00, 0x4fff],
    [0x1f300, 0x1f5ff],
  ];
  const [low, high] = rng.pick(ranges);
  return String.fromCodePoint(rng.intBetween(low, high));
}

/** `command` with one small change: a character dropped, doubled or inserted, case or spacing changed, words added. */
function nearMiss(rng: Rng, command: string): string {
  const at = rng.int(command.length + 1);
  switch (rng.int(8)) {
    case 0:
      return command.slice(0, at) + command.slice(at + 1);
    case 1:
      return command.slice(0, at) + command.slice(at - 1, at) + command.slice(at);
    case 2:
      return command.slice(0, at) + oddCharacter(rng) + command.slice(at);
    case 3:
      return command.toUpperCase();
    case 4:
      return `  ${command.replace(/ /g, ' \t ')}\n`;
    case 5:
      return `${command} ${rng.intBetween(0, 99)}`;
    case 6:
      return `${command}, please`;
    default:
      return command.replace(/\d+/, (digits) => String(Number(digits) + rng.intBetween(1, 9)));
  }
}

/**
 * A command to fuzz `step` with: a third exact admissible commands, a third near misses of them,
 * a third odd strings (empty, whitespace, 1 MB, unicode, control characters, lone surrogates,
 * random characters).
 */
export function strangeAction(rng: Rng, admissible: readonly string[]): string {
  const kind = rng.int(3);
  if (admissible.length > 0 && kind === 0) return rng.pick(admissible);
  if (admissible.length > 0 && kind === 1) return nearMiss(rng, rng.pick(admissible));
  if (rng.int(3) === 0) return Array.from({ length: rng.int(40) }, () => oddCharacter(rng)).join('');
  const odd = rng.int(oddStrings.length + 1);
  return odd === oddStrings.length ? oneMegabyte() : oddStrings[odd]!;
}

/** Control characters other than line feed and tab. */
const CONTROL = /(?![\n\t])\p{Cc}/u;

/**
 * What is wrong with how `run` ended, or undefined when it returned or refused cleanly: a refusal
 * must be a PilotRLError whose message has no stack frame, no control characters other than line
 * feed and tab, is shorter than `maxLength`, and, with `oneLine`, has no line break.
 */
export function refusalProblem(
  run: () => unknown,
  options: { oneLine?: boolean; maxLength?: number } = {},
): string | undefined {
  const maxLength = options.maxLength ?? 2000;
  try {
    run();
    return undefined;
  } catch (error) {
    if (!PilotRLError.isInstance(error)) return `threw ${String((error as Error).stack ?? error)}`;
    const message = (error as Error).message;
    if (message.includes('    at ')) return `message has a stack frame: ${message}`;
    if (options.oneLine === true && message.includes('\n')) {
      return `message of several lines: ${JSON.stringify(message.slice(0, 300))}`;
    }
    if (message.length >= maxLength) return `message is ${message.length} characters long`;
    if (CONTROL.test(message)) return `message quotes control characters: ${JSON.stringify(message)}`;
    return undefined;
  }
}

/**
 * Steps `env` `steps` times with strange commands along random episodes (a new one, from
 * `nextSeed`, whenever one ends) and returns what went wrong: a throw other than an EnvError, a
 * result outside core's schema, an observation longer than `maxObservation`, or a command of more
 * than 1,000 characters taken as valid.
 */
export async function strangeStepProblems(
  env: TextEnv,
  rng: Rng,
  options: { steps: number; maxObservation: number; nextSeed: () => number },
): Promise<string[]> {
  const problems: string[] = [];
  let last: StepResult = await env.reset({ seed: options.nextSeed() });
  for (let i = 0; i < options.steps; i++) {
    if (last.terminated || last.truncated) last = await env.reset({ seed: options.nextSeed() });
    const action = strangeAction(rng, last.admissibleActions);
    const shown = JSON.stringify(action.slice(0, 40));
    try {
      last = await env.step(action);
    } catch (error) {
      if (!EnvError.isInstance(error)) problems.push(`step ${i} (${shown}) threw ${String(error)}`);
      continue;
    }
    if (!stepResultSchema.safeParse(last).success) problems.push(`step ${i} (${shown}): malformed result`);
    if (last.observation.length > options.maxObservation) {
      problems.push(`step ${i} (${shown}): observation of ${last.observation.length} characters`);
    }
    if (last.info.valid && action.length > 1000) {
      problems.push(`step ${i} (${shown}): a command of ${action.length} characters was valid`);
    }
  }
  return problems;
}
