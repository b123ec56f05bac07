import { isAlias, isMap, isScalar, type YAMLMap } from 'yaml';
import { describe, expect, it } from 'vitest';
import { MAX_PROBLEMS_PER_CODE } from '../src/template/problem-collector.js';
import type { Problem } from '../src/template/problems.js';
import { LIMITS, readSource } from '../src/template/read.js';

const QUICK_FIX = `template:
  name: quick-fix
  purpose: one small ticket, one worker
  inputs:
    - name: tickets
      required: true
      type: list
  writes: true
  entry: intake
  inlet: start
version: 1
nodes:
  intake: { type: model, role: ticket_intake, profile: read_only }
  work:
    type: model
    role: worker
    profile: workspace_write
    prompt: "Fix {{inputs.tickets}}."
cords:
  - { from: intake.done, to: work.start }
`;

/** code, path, line and column of each problem — what tests may rely on */
function brief(problems: readonly Problem[]) {
  return problems.map((p) => ({ code: p.code, path: p.path, line: p.line, column: p.column }));
}

function only(source: string) {
  const r = readSource(source);
  expect(r.problems).toHaveLength(1);
  return { ...brief(r.problems)[0]!, doc: r.doc };
}

describe('readSource: plain YAML', () => {
  it('reads a valid template with no problems', () => {
    const r = readSource(QUICK_FIX);
    expect(r.problems).toEqual([]);
    expect(r.doc).not.toBeNull();
    expect(r.doc!.getIn(['nodes', 'work', 'profile'])).toBe('workspace_write');
    expect(r.doc!.getIn(['cords', 0, 'to'])).toBe('work.start');
  });

  it('reads an empty source as one empty document', () => {
    const r = readSource('');
    expect(r.problems).toEqual([]);
    expect(r.doc).not.toBeNull();
    expect(r.doc!.contents).toBeNull();
  });

  it('keeps yes, no, on and off as strings (YAML 1.2 core)', () => {
    const r = readSource('a: yes\nb: no\nc: on\nd: off\ne: true\n');
    expect(r.problems).toEqual([]);
    expect(r.doc!.toJS()).toEqual({ a: 'yes', b: 'no', c: 'on', d: 'off', e: true });
  });

  it('does not merge `<<: *a`: it stays an ordinary key', () => {
    const r = readSource('base: &b { x: 1 }\nm:\n  <<: *b\n  y: 2\n');
    expect(r.problems).toEqual([]);
    const m = r.doc!.get('m') as YAMLMap;
    expect(m.has('<<')).toBe(true);
    expect(m.has('x')).toBe(false);
    expect(m.items.map((p) => (isScalar(p.key) ? p.key.value : null))).toEqual(['<<', 'y']);
  });

  it('counts lines across CRLF line ends', () => {
    expect(only('a: 1\r\nb: 2\r\na: 3\r\n')).toMatchObject({ code: 'yaml.duplicate_key', line: 3, column: 1 });
  });

  it('maps each alias to its anchored node', () => {
    const r = readSource('a: &x { k: v }\nb: &x [1]\nc: *x\n');
    expect(r.problems).toEqual([]);
    const alias = r.doc!.get('c', true);
    expect(isAlias(alias)).toBe(true);
    // the last anchor of that name before the alias, as YAML says
    expect(r.aliasTargets.get(alias as never)).toBe(r.doc!.get('b', true));
  });
});

describe('readSource: yaml.multiple_documents', () => {
  it('refuses a second document at its start', () => {
    expect(only('a: 1\n---\nb: 2\n')).toMatchObject({ code: 'yaml.multiple_documents', path: '', line: 2, column: 1, doc: null });
  });

  it('refuses content after `...`', () => {
    expect(only('a: 1\n...\nb: 2\n')).toMatchObject({ code: 'yaml.multiple_documents', line: 3 });
  });

  it('refuses a trailing `---` as a second, empty document', () => {
    expect(only('a: 1\n---\n')).toMatchObject({ code: 'yaml.multiple_documents', line: 2 });
  });

  it('refuses a %YAML directive (it would switch on 1.1 rules)', () => {
    expect(only('%YAML 1.2\n---\na: 1\n')).toMatchObject({ code: 'yaml.multiple_documents', line: 1, column: 1, doc: null });
  });

  it('refuses a %TAG directive', () => {
    expect(only('# head\n%TAG !e! tag:example.com,2000:\n---\na: !e!x 1\n')).toMatchObject({ code: 'yaml.multiple_documents', line: 2 });
  });

  it('near miss: one document with `---` before it, `...` after it, and `---` inside a string', () => {
    for (const src of ['---\na: 1\n', 'a: 1\n...\n', 'a: 1\n...\n# trailing comment\n', 'a: "---"\nb: "%YAML 1.1"\n', '--- # a comment\na: 1\n']) {
      expect(readSource(src).problems, src).toEqual([]);
    }
  });
});

describe('readSource: yaml.tag', () => {
  it('refuses a custom tag at its position, with the path of its node, and still gives the document', () => {
    const r = readSource('a: 1\nb:\n  c: !x 1\n');
    expect(brief(r.problems)).toEqual([{ code: 'yaml.tag', path: '/b/c', line: 3, column: 6 }]);
    expect(r.doc).not.toBeNull();
  });

  it('refuses the non-specific tag `!`, 1.1 tags and language tags', () => {
    for (const tag of ['!', '!!binary', '!!python/object/apply:os.system', '!<tag:example.com,2000:x>', '!!set']) {
      expect(only(`a: ${tag} x\n`).code, tag).toBe('yaml.tag');
    }
  });

  it('reports a tag in a sequence with its index', () => {
    expect(only('list:\n  - a\n  - !x b\n')).toMatchObject({ code: 'yaml.tag', path: '/list/1', line: 3, column: 5 });
  });

  it('near miss: the core tags are allowed and resolve as YAML 1.2 core', () => {
    const r = readSource('a: !!str 1\nb: !!int "2"\nc: !<tag:yaml.org,2002:bool> true\nd: !!map { k: v }\ne: !!seq [1]\nf: !!null ""\n');
    expect(r.problems).toEqual([]);
    expect(r.doc!.toJS()).toEqual({ a: '1', b: 2, c: true, d: { k: 'v' }, e: [1], f: null });
  });

  it(`stops after ${MAX_PROBLEMS_PER_CODE} tags and gives no document`, () => {
    const r = readSource('- !x a\n'.repeat(150));
    expect(r.problems).toHaveLength(MAX_PROBLEMS_PER_CODE);
    expect(r.problems.every((p) => p.code === 'yaml.tag')).toBe(true);
    expect(r.problems.at(-1)!.line).toBe(MAX_PROBLEMS_PER_CODE);
    expect(r.doc).toBeNull();
  });
});

describe('readSource: yaml.duplicate_key', () => {
  it('reports the second key with its JSON Pointer path and still gives the document', () => {
    const src = 'nodes:\n  work:\n    type: model\n    role: worker\n    role: planner\n';
    const r = readSource(src);
    expect(brief(r.problems)).toEqual([{ code: 'yaml.duplicate_key', path: '/nodes/work/role', line: 5, column: 5 }]);
    expect(r.doc).not.toBeNull();
    expect(r.doc!.getIn(['nodes', 'work', 'role'])).toBe('worker');
  });

  it('finds duplicates in flow mappings and inside sequences', () => {
    expect(only('cords:\n  - { from: a.b, to: c.d, to: e.f }\n')).toMatchObject({ code: 'yaml.duplicate_key', path: '/cords/0/to', line: 2, column: 27 });
  });

  it('treats keys that are the same JSON key as the same: 1 and "1", ~ and null', () => {
    expect(only('a:\n  1: x\n  "1": y\n')).toMatchObject({ path: '/a/1', line: 3 });
    expect(only('~: x\nnull: y\n')).toMatchObject({ code: 'yaml.duplicate_key', path: '/', line: 2 });
  });

  it('escapes ~ and / in the path', () => {
    expect(only('a/b:\n  c~d: 1\n  c~d: 2\n')).toMatchObject({ path: '/a~1b/c~0d' });
  });

  it('near miss: the same key in different mappings, and keys that differ', () => {
    for (const src of ['a: { k: 1 }\nb: { k: 1 }\n', '- k: 1\n- k: 2\n', 'a: 1\nA: 2\n"a ": 3\n', '[a: 1, a: 2]\n']) {
      expect(readSource(src).problems, src).toEqual([]);
    }
  });

  it(`stops after ${MAX_PROBLEMS_PER_CODE} duplicates and gives no document`, () => {
    const r = readSource('a: 1\n'.repeat(150));
    expect(r.problems).toHaveLength(MAX_PROBLEMS_PER_CODE);
    expect(brief(r.problems)[0]).toEqual({ code: 'yaml.duplicate_key', path: '/a', line: 2, column: 1 });
    expect(r.doc).toBeNull();
  });

  it('below the cap, reports every duplicate', () => {
    const r = readSource('x:\n' + '  a: 1\n'.repeat(40));
    expect(r.problems).toHaveLength(39);
    expect(r.problems.every((p) => p.code === 'yaml.duplicate_key' && p.path === '/x/a')).toBe(true);
    expect(r.doc).not.toBeNull();
  });
});

describe('readSource: yaml.alias_limit', () => {
  const aliases = (n: number) => 'a: &a 1\nlist:\n' + '  - *a\n'.repeat(n);

  it(`refuses alias number ${LIMITS.aliases + 1}, once, at that alias`, () => {
    expect(only(aliases(LIMITS.aliases + 1))).toMatchObject({ code: 'yaml.alias_limit', line: LIMITS.aliases + 3, column: 5, doc: null });
    expect(only(aliases(5000)).code).toBe('yaml.alias_limit');
  });

  it(`near miss: ${LIMITS.aliases} aliases`, () => {
    const r = readSource(aliases(LIMITS.aliases));
    expect(r.problems).toEqual([]);
    expect(r.doc).not.toBeNull();
  });

  it('refuses aliases that expand beyond the cap while under the count cap', () => {
    const lines = ['a0: &a0 [x, x]'];
    for (let i = 1; i <= 20; i++) lines.push(`a${i}: &a${i} [*a${i - 1}, *a${i - 1}]`);
    const p = only(lines.join('\n'));
    expect(p.code).toBe('yaml.alias_limit');
    expect(p.line).toBeLessThanOrEqual(15); // 2^14 > 10,000: the cap is crossed there, not at the end
  });

  it('refuses an alias inside its own anchor', () => {
    expect(only('a: &a [1, *a]\n')).toMatchObject({ code: 'yaml.alias_limit', line: 1, column: 11, doc: null });
  });
});

describe('readSource: limit.size', () => {
  it('refuses a source over 128 KiB of UTF-8 without a position', () => {
    const r = readSource('a: ' + 'x'.repeat(LIMITS.sizeBytes));
    expect(brief(r.problems)).toEqual([{ code: 'limit.size', path: '', line: undefined, column: undefined }]);
    expect(r.doc).toBeNull();
  });

  it('counts bytes, not characters', () => {
    const chars = (LIMITS.sizeBytes - 3) / 2 + 1; // each é is two bytes
    expect(only('a: ' + 'é'.repeat(chars)).code).toBe('limit.size');
  });

  it('near miss: exactly 128 KiB', () => {
    const src = 'a: ' + 'x'.repeat(LIMITS.sizeBytes - 4) + '\n';
    expect(Buffer.byteLength(src)).toBe(LIMITS.sizeBytes);
    expect(readSource(src).problems).toEqual([]);
  });

  it(`refuses flow nesting deeper than ${LIMITS.depth} where the cap is crossed`, () => {
    const d = LIMITS.depth;
    expect(only('['.repeat(d + 1) + ']'.repeat(d + 1))).toMatchObject({ code: 'limit.size', path: '', line: 1, column: d + 1, doc: null });
    // the mapping counts: `a:` and 64 brackets are 65 collections
    expect(only('a: ' + '['.repeat(d) + ']'.repeat(d))).toMatchObject({ code: 'limit.size', line: 1, column: 3 + d });
  });

  it(`refuses block nesting deeper than ${LIMITS.depth}`, () => {
    let src = '';
    for (let i = 0; i <= LIMITS.depth; i++) src += ' '.repeat(i) + 'k:\n';
    src += ' '.repeat(LIMITS.depth + 1) + 'k: v\n';
    expect(only(src)).toMatchObject({ code: 'limit.size', line: LIMITS.depth + 1 });
  });

  it(`near miss: nesting exactly ${LIMITS.depth}`, () => {
    const d = LIMITS.depth;
    expect(readSource('[' .repeat(d) + ']'.repeat(d)).problems).toEqual([]);
    let src = '';
    for (let i = 0; i < d - 1; i++) src += ' '.repeat(i) + 'k:\n';
    src += ' '.repeat(d - 1) + 'k: v\n';
    expect(readSource(src).problems).toEqual([]);
  });

  it('refuses an alias whose expansion nests too deep', () => {
    const half = LIMITS.depth / 2 + 1;
    const src = 'a: &a ' + '['.repeat(half) + ']'.repeat(half) + '\nb: ' + '['.repeat(half) + '*a' + ']'.repeat(half) + '\n';
    expect(only(src)).toMatchObject({ code: 'limit.size', line: 2, column: 4 + half });
  });

  it(`refuses more than ${LIMITS.tokens} tokens`, () => {
    // `- 1\n` is five tokens: `-`, a space, a scalar marker, `1`, a newline
    const lines = Math.floor(LIMITS.tokens / 5);
    expect(only('- 1\n'.repeat(lines + 1))).toMatchObject({ code: 'limit.size', line: lines + 1, doc: null });
    expect(readSource('- 1\n'.repeat(lines)).problems).toEqual([]);
    // flow brackets count twice: `[],` is five, not three
    const pairs = Math.floor(LIMITS.tokens / 5);
    expect(only('[' + '[],'.repeat(pairs) + ']\n').code).toBe('limit.size');
  });
});

describe('readSource: yaml.syntax', () => {
  it('reports a parse error with its line and gives no document', () => {
    const r = readSource('a: 1\nb: [1, 2\nc: 3\n');
    expect(r.problems.length).toBeGreaterThan(0);
    expect(r.problems.every((p) => p.code === 'yaml.syntax' && p.line !== undefined)).toBe(true);
    expect(r.problems[0]!.line).toBeGreaterThanOrEqual(2);
    expect(r.doc).toBeNull();
  });

  it('reports a bad indent at its line', () => {
    expect(brief(readSource('a:\n  b: 1\n c: 2\n').problems)[0]).toMatchObject({ code: 'yaml.syntax', line: 3 });
  });

  it('refuses an alias to no anchor', () => {
    expect(only('a: *nowhere\n')).toMatchObject({ code: 'yaml.syntax', line: 1, column: 4, doc: null });
  });

  it(`stops after ${MAX_PROBLEMS_PER_CODE} errors`, () => {
    const r = readSource(']\n'.repeat(5000));
    expect(r.problems).toHaveLength(MAX_PROBLEMS_PER_CODE);
    expect(brief(r.problems)[MAX_PROBLEMS_PER_CODE - 1]).toMatchObject({ code: 'yaml.syntax', line: MAX_PROBLEMS_PER_CODE });
  });

  it('near miss: the same text, closed', () => {
    expect(readSource('a: 1\nb: [1, 2]\nc: 3\n').problems).toEqual([]);
  });

  it('turns a thrown error into a problem instead of throwing', () => {
    const r = readSource(undefined as unknown as string);
    expect(brief(r.problems)).toMatchObject([{ code: 'yaml.syntax', path: '' }]);
    expect(r.doc).toBeNull();
  });
});

describe('readSource: order', () => {
  it('lists problems in source order across kinds', () => {
    const r = readSource('a: 1\nb: !x 2\na: 3\nc: !y 4\n');
    expect(brief(r.problems).map((p) => [p.code, p.line])).toEqual([
      ['yaml.tag', 2],
      ['yaml.duplicate_key', 3],
      ['yaml.tag', 4],
    ]);
    expect(isMap(r.doc!.contents)).toBe(true);
  });
});
