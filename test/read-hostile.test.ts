import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PROBLEM_CODES } from '../src/template/problems.js';
import { LIMITS, readSource } from '../src/template/read.js';
import { HOSTILE_SHAPES } from './fixtures/hostile/shapes.js';

// Timing belongs in bench/hostile.ts; these check what each shape reads as.
describe('readSource on hostile shapes at the size cap', () => {
  for (const shape of HOSTILE_SHAPES) {
    it(`${shape.name} → ${shape.code ?? 'no problems'}`, () => {
      const source = shape.source();
      // every shape fits the cap but the one that is one byte over it
      const over = Buffer.byteLength(source) > LIMITS.sizeBytes;
      expect(over).toBe(shape.name === '128 KiB and one byte');
      let result: ReturnType<typeof readSource> | undefined;
      expect(() => {
        result = readSource(source);
      }).not.toThrow();
      const { problems, doc } = result!;
      if (shape.code === null) {
        expect(problems).toEqual([]);
        expect(doc).not.toBeNull();
      } else {
        expect(problems.length).toBeGreaterThan(0);
        expect(new Set(problems.map((p) => p.code))).toEqual(new Set([shape.code]));
        expect(problems.length).toBeLessThanOrEqual(100);
        expect(doc).toBeNull();
      }
    });
  }

  it('lists the seven shapes marked named', () => {
    expect(HOSTILE_SHAPES.filter((s) => s.named)).toHaveLength(7);
  });
});

describe('hostile fixture files', () => {
  const read = (name: string) => readSource(readFileSync(new URL(`./fixtures/hostile/${name}`, import.meta.url), 'utf8'));
  const codes = (name: string) => read(name).problems.map((p) => [p.code, p.line]);

  it('billion-laughs.yaml: one alias_limit at the 65th alias', () => {
    // 9 aliases a line from line 3: the 65th is on line 10
    expect(codes('billion-laughs.yaml')).toEqual([['yaml.alias_limit', 10]]);
  });

  it('python-tag.yaml: the tag is refused where it stands', () => {
    const r = read('python-tag.yaml');
    expect(r.problems.map((p) => [p.code, p.path, p.line])).toEqual([['yaml.tag', '/template/purpose', 4]]);
  });

  it('recursive-alias.yaml: an alias inside its own anchor', () => {
    expect(codes('recursive-alias.yaml')).toEqual([['yaml.alias_limit', 3]]);
  });

  it('yaml11-directive.yaml: the directive is refused before anything merges', () => {
    const r = read('yaml11-directive.yaml');
    expect(codes('yaml11-directive.yaml')).toEqual([['yaml.multiple_documents', 1]]);
    expect(r.doc).toBeNull();
  });
});

describe('readSource on arbitrary text', () => {
  // YAML's structural characters, so the generated text hits the lexer's and parser's odd corners.
  const unit = fc.constantFrom(...'-?:,[]{}#&*!|>\'"%@` \n\t\rabyx01~.<<='.split(''), '---', '...', '%YAML 1.1', '!!str', '&a', '*a', '  ', ': ');

  it('never throws, and lists known codes in source order', () => {
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 200 }), (source) => {
        const r = readSource(source);
        const lines = r.problems.map((p) => p.line ?? 0);
        expect(lines).toEqual([...lines].sort((a, b) => a - b));
        for (const p of r.problems) expect(Object.hasOwn(PROBLEM_CODES, p.code)).toBe(true);
        // a document is given only when nothing made it unsafe to walk
        const fatal = r.problems.some((p) => !['yaml.duplicate_key', 'yaml.tag'].includes(p.code));
        expect(r.doc === null).toBe(fatal || r.problems.length >= 100);
      }),
      { numRuns: 500 },
    );
  });
});
