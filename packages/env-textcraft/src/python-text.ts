// The two pieces of Python string behaviour TextCraft's answers show: `str.strip()` (which trims
// Python's whitespace, not JavaScript's) and `repr()` of a string (quoted in an error message).

const pythonWhitespace =
  '\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const stripPattern = new RegExp(`^[${pythonWhitespace}]+|[${pythonWhitespace}]+$`, 'g');

/** Python's `text.strip()`. */
export const pythonStrip = (text: string): string => text.replace(stripPattern, '');

const escapes: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
// Python's str.isprintable() is false for these categories (ASCII space aside).
const unprintable = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

/** Python's `repr(text)`: single quotes unless the text has one and no double quote. */
export function pythonRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (let i = 0; i < text.length; i++) {
    const code = text.codePointAt(i)!;
    const char = String.fromCodePoint(code);
    if (code > 0xffff) i++;
    if (char === quote) out += `\\${quote}`;
    else if (escapes[char] !== undefined) out += escapes[char];
    else if (char !== ' ' && (unprintable.test(char) || (code >= 0xd800 && code <= 0xdfff)))
      out += hexEscape(code);
    else out += char;
  }
  return out + quote;
}

function hexEscape(code: number): string {
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
  if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, '0')}`;
  return `\\U${code.toString(16).padStart(8, '0')}`;
}
