/**
 * Where a JSON text stops being JSON, found by our own scan rather than read
 * from the engine's `JSON.parse` message: that message differs between
 * Node's and Chromium's V8 (and between their versions), and the service
 * and the settings page must mark the same place (src/template/kit.ts).
 * A scan of the grammar of RFC 8259; null when the text is JSON.
 */
export interface JsonSyntaxError {
  /** UTF-16 offset of the first character that cannot continue the text */
  offset: number;
  line: number;
  column: number;
  /** what is wrong there, in words */
  reason: string;
}

const WS = new Set([' ', '\t', '\n', '\r']);

class Stop extends Error {
  constructor(
    readonly at: number,
    readonly reason: string,
  ) {
    super(reason);
  }
}

export function jsonSyntaxError(text: string): JsonSyntaxError | null {
  let i = 0;
  const ws = () => {
    while (i < text.length && WS.has(text[i]!)) i++;
  };
  const fail = (reason: string): never => {
    throw new Stop(i, i >= text.length ? 'the text ends too early' : reason);
  };
  /** a trailing comma is marked where it is, not at the bracket after it (which may be lines later) */
  let comma = -1;
  const trailing = (bracket: string): never => {
    throw new Stop(comma, `a trailing comma before ${bracket}`);
  };
  const literal = (word: string) => {
    for (const ch of word) {
      if (text[i] !== ch) fail(`expected ${word}`);
      i++;
    }
  };
  const string = () => {
    i++; // the opening quote
    for (;;) {
      const ch = text[i] ?? '';
      if (ch === '') fail('a string is not closed');
      if (ch === '"') {
        i++;
        return;
      }
      if (ch === '\\') {
        i++;
        const e = text[i];
        if (e === 'u') {
          for (let k = 1; k <= 4; k++) {
            if (!/[0-9a-fA-F]/.test(text[i + k] ?? '')) {
              i += k;
              fail('a \\u escape needs four hex digits');
            }
          }
          i += 5;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i++;
        else fail('an unknown escape in a string');
        continue;
      }
      if (ch < ' ') fail('a control character (a line break?) inside a string');
      i++;
    }
  };
  const number = () => {
    if (text[i] === '-') i++;
    if (text[i] === '0') i++;
    else if (/[1-9]/.test(text[i] ?? '')) while (/[0-9]/.test(text[i] ?? '')) i++;
    else fail('a number needs a digit');
    if (text[i] === '.') {
      i++;
      if (!/[0-9]/.test(text[i] ?? '')) fail('a digit after the decimal point');
      while (/[0-9]/.test(text[i] ?? '')) i++;
    }
    if (text[i] === 'e' || text[i] === 'E') {
      i++;
      if (text[i] === '+' || text[i] === '-') i++;
      if (!/[0-9]/.test(text[i] ?? '')) fail('a digit in the exponent');
      while (/[0-9]/.test(text[i] ?? '')) i++;
    }
  };
  const value = (depth: number): void => {
    if (depth > 512) fail('nested too deep');
    ws();
    const ch = text[i];
    if (ch === '{') {
      i++;
      ws();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        ws();
        if (text[i] === '}') trailing('}');
        if (text[i] !== '"') fail('expected a key in double quotes');
        string();
        ws();
        if (text[i] !== ':') fail('expected : after the key');
        i++;
        value(depth + 1);
        ws();
        if (text[i] === ',') {
          comma = i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return;
        }
        fail('expected , or } after a value');
      }
    }
    if (ch === '[') {
      i++;
      ws();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (;;) {
        ws();
        if (text[i] === ']') trailing(']');
        value(depth + 1);
        ws();
        if (text[i] === ',') {
          comma = i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return;
        }
        fail('expected , or ] after a value');
      }
    }
    if (ch === '"') string();
    else if (ch === 't') literal('true');
    else if (ch === 'f') literal('false');
    else if (ch === 'n') literal('null');
    else if (ch === '-' || /[0-9]/.test(ch ?? '')) number();
    else fail(ch === "'" ? 'strings take double quotes' : 'expected a value');
  };
  try {
    // a byte order mark is not JSON to JSON.parse either
    value(0);
    ws();
    if (i < text.length) fail('more after the end of the value');
    return null;
  } catch (e) {
    if (!(e instanceof Stop)) throw e;
    return { offset: e.at, ...lineColumn(text, e.at), reason: e.reason };
  }
}

/** 1-based line and column (in UTF-16 units, as editors count) of an offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let k = text.indexOf('\n'); k >= 0 && k < offset; k = text.indexOf('\n', k + 1)) {
    line++;
    start = k + 1;
  }
  return { line, column: offset - start + 1 };
}
