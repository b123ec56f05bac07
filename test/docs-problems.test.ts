// docs/problems.md documents exactly the codes in PROBLEM_CODES, each with its
// severity; docs/format.md names every builtin, profile, capability and tool
// from the catalogues (the catalogues are the source; the docs must keep up).
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { BUILTINS } from '../src/template/catalog/builtins.js';
import { CAPABILITIES } from '../src/template/catalog/capabilities.js';
import { PROFILES } from '../src/template/catalog/profiles.js';
import { TOOLS } from '../src/template/catalog/tools.js';
import { PROBLEM_CODES } from '../src/template/problems.js';
import { LIMITS } from '../src/template/read.js';

const doc = (name: string) => readFileSync(new URL(`../docs/${name}`, import.meta.url), 'utf8');

describe('docs/problems.md', () => {
  const text = doc('problems.md');
  /** `### \`code\` — severity` headings */
  const documented = new Map([...text.matchAll(/^### `([^`]+)` — (error|warning)\s*$/gm)].map((m) => [m[1] ?? '', m[2] ?? '']));

  test('documents every code, with its severity', () => {
    for (const [code, { severity }] of Object.entries(PROBLEM_CODES)) {
      expect(documented.get(code), code).toBe(severity);
    }
  });

  test('documents no code that does not exist', () => {
    expect([...documented.keys()].filter((c) => !Object.hasOwn(PROBLEM_CODES, c))).toEqual([]);
  });
});

describe('docs/format.md', () => {
  const text = doc('format.md');
  test.each([
    ['builtin', Object.keys(BUILTINS)],
    ['profile', Object.keys(PROFILES)],
    ['capability', Object.keys(CAPABILITIES)],
    ['tool', Object.keys(TOOLS)],
  ])('names every %s', (_kind, names) => {
    expect(names.filter((n) => !text.includes(`\`${n}\``))).toEqual([]);
  });

  test('gives every builtin its ports', () => {
    for (const [name, spec] of Object.entries(BUILTINS)) {
      const row = text.split('\n').find((l) => l.startsWith(`| \`${name}\` |`));
      expect(row, name).toContain(`| ${spec.inlets.join(', ')} | ${spec.outlets.join(', ')} |`);
    }
  });

  test('gives every profile its touches', () => {
    for (const [name, touches] of Object.entries(PROFILES)) {
      expect(text).toContain(`| \`${name}\` | ${touches.join(', ')} |`);
    }
  });

  test("states the reader's caps", () => {
    for (const n of [LIMITS.nodes, LIMITS.cords, LIMITS.depth, LIMITS.aliases]) expect(text).toContain(`| ${n}`);
    expect(text).toContain(`${LIMITS.sizeBytes / 1024} KiB`);
  });
});
