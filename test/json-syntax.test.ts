/**
 * kit.json's syntax problems are placed by our own scan (src/template/json-syntax.ts),
 * not by the engine's message, which reads differently in Node and Chromium: the
 * scan must agree with JSON.parse on what is JSON, and name the line and column.
 */
import { describe, expect, it } from 'vitest';
import { jsonSyntaxError } from '../src/template/json-syntax.js';
import { validateKitText } from '../src/template/kit.js';

const SAMPLES = [
  '{}', '[]', '{"tools": ["web.fetch"]}', ' {"a": [1, -2.5e+3, true, false, null, "\\u00e9\\n"]} ', '"x"', '0', '-0.1E2',
  '', '{', '{"a": 1,}', '[1,]', "{'a': 1}", '{"a" 1}', '{"a": 01}', '{"a": 1.}', '{"a": "\\x"}', '{"a": "\n"}', '[1] 2', 'tru', '{"a": -}', '\ufeff{}', '{"a": "\\u12"}',
];

describe('jsonSyntaxError', () => {
  it('calls exactly what JSON.parse refuses not JSON', () => {
    for (const s of SAMPLES) {
      let parses = true;
      try {
        JSON.parse(s);
      } catch {
        parses = false;
      }
      expect(jsonSyntaxError(s) === null, JSON.stringify(s)).toBe(parses);
    }
  });

  it('puts a trailing comma at its line and column, and kit.json problems carry them', () => {
    const text = '{\n  "tools": [\n    "web.fetch",\n    "fs.read",\n    "fs.write",\n    "shell.run",\n    "git.diff",\n    "git.log",\n  ]\n}\n';
    // the comma after "git.log": line 8, column 14 — not the `]` on the line after it
    expect(jsonSyntaxError(text)).toMatchObject({ line: 8, column: 14, offset: text.indexOf('"git.log",') + 9 });
    const { problems } = validateKitText('{\n  "tools": [\n    "web.fetch"\n  ],\n}\n');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ code: 'type.mismatch', path: '/kit', line: 4, column: 4 });
    expect(validateKitText('{\n\n\n\n\n\n\n  "tools": ["a"] x\n}').problems[0]).toMatchObject({ line: 8, column: 18 });
  });
});
