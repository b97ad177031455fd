// Random commands for fuzzing an env's `step`: exact admissible commands (so episodes move on),
// near misses of them, and the empty, whitespace-only, 1 MB, unicode, control-character and
// lone-surrogate strings a model can produce. Deterministic for a given generator.
import type { Rng } from '@pilotrl/core';

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
