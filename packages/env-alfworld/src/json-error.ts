// Finds where JSON text stops being valid (Node 20's JSON.parse does not say), so that errors can
// name the line.

/**
 * Deepest nesting read; text nested deeper is reported where it passes this depth, since reading
 * on would exhaust the stack (game files nest 5 deep).
 */
const MAX_DEPTH = 1000;

/** Offset of the first character where `text` is not valid JSON, or undefined when it is valid. */
export function jsonErrorOffset(text: string): number | undefined {
  let i = 0;
  let depth = 0;
  const fail = (): never => {
    throw i;
  };
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const literal = (word: string) => {
    for (const ch of word) if (text[i++] !== ch) return fail();
  };
  const string = () => {
    i++;
    while (i < text.length && text[i] !== '"') {
      if (text[i] === '\\') i++;
      else if (text.charCodeAt(i) < 0x20) fail();
      i++;
    }
    if (text[i] !== '"') fail();
    i++;
  };
  const value = (): void => {
    ws();
    const ch = text[i];
    if (ch === '{' || ch === '[') {
      const close = ch === '{' ? '}' : ']';
      if (++depth > MAX_DEPTH) fail();
      i++;
      ws();
      if (text[i] === close) {
        i++;
        depth--;
        return;
      }
      for (;;) {
        if (ch === '{') {
          ws();
          if (text[i] !== '"') fail();
          string();
          ws();
          if (text[i] !== ':') fail();
          i++;
        }
        value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === close) {
          i++;
          depth--;
          return;
        } else fail();
      }
    }
    if (ch === '"') string();
    else if (ch === 't') literal('true');
    else if (ch === 'f') literal('false');
    else if (ch === 'n') literal('null');
    else number();
  };
  const number = () => {
    const number = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 64));
    if (number === null) fail();
    i += number![0].length;
  };
  try {
    value();
    ws();
    return i < text.length ? i : undefined;
  } catch (offset) {
    return Math.min(offset as number, text.length);
  }
}
