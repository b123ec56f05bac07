/**
 * The answer memo (src/library/memos/answer-memo.ts): a template's
 * answer with its card is kept while everything it is made of is as it was,
 * proven by its files' stats, its base's, and the validation memo's refs —
 * and never served once any of those changed. The clock is set ahead, so
 * every file is past the racy window and the stats alone prove it (the
 * list's rule, entry-cache.ts); each hand edit changes a file's size.
 */
import { rm } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { openLibraryReader, type LibraryReader } from '../src/library/reader.js';
import { AnswerMemo, MAX_BYTES, MAX_NAMES } from '../src/library/memos/answer-memo.js';
import type { TemplateDetail } from '../src/library/types.js';
import { ALPHA, BETA, type Fixture, fixture } from './http-fixture.js';

let fx: Fixture;
let reader: LibraryReader;

const AUDITED = ALPHA.replace('name: alpha', 'name: audited').replace('role: worker', 'role: auditor');
const later = () => Date.now() + 60_000;

beforeEach(async () => {
  fx = await fixture();
  await fx.write(BETA.replace('alpha with a review', 'beta, the operator copy'), 'templates', 'beta.yaml');
  await fx.write(AUDITED, 'templates', 'audited.yaml');
  reader = await openLibraryReader({ root: fx.root, harnessDir: fx.harness, now: later });
});
afterEach(() => fx.cleanup());

const card = async (name: string) => (await reader.getTemplate(name, { card: true }))!;

describe('a kept answer', () => {
  test('is the same answer while nothing changed, and equal to one built afresh', async () => {
    const first = await card('beta');
    expect(first.card?.diff?.against).toEqual({ name: 'alpha', kind: 'base' });
    expect(await card('beta')).toBe(first);
    const fresh = await openLibraryReader({ root: fx.root, harnessDir: fx.harness, now: later });
    expect(JSON.stringify(await fresh.getTemplate('beta', { card: true }))).toBe(JSON.stringify(first));
  });

  test('a hand edit of the copy is read', async () => {
    const first = await card('beta');
    await fx.write(BETA.replace('alpha with a review', 'beta, edited by hand, longer'), 'templates', 'beta.yaml');
    const after = await card('beta');
    expect(after).not.toBe(first);
    expect(after.purpose).toBe('beta, edited by hand, longer');
    expect(after.etag).not.toBe(first.etag);
  });

  test("a hand edit of the base is diffed: the variant's answer is built again", async () => {
    const first = await card('beta');
    await fx.write(ALPHA.replace('one worker then a gate', 'alpha, the operator copy of the base'), 'templates', 'alpha.yaml');
    const after = await card('beta');
    expect(after).not.toBe(first);
    expect(after.etag).toBe(first.etag);
    expect(after.card?.diff?.unified).toContain('alpha, the operator copy of the base');
  });

  test('a role folder added by hand answers the refs again', async () => {
    const first = await card('audited');
    expect(first.valid).toBe(false);
    await fx.write('# Auditor\n', 'roles', 'auditor', 'role.md');
    const after = await card('audited');
    expect(after).not.toBe(first);
    expect(after.valid).toBe(true);
    await rm(fx.at('roles', 'auditor'), { recursive: true });
    expect((await card('audited')).valid).toBe(false);
  });

  test('a copy removed by hand answers the shipped template', async () => {
    const first = await card('beta');
    await rm(fx.at('templates', 'beta.yaml'));
    const after = await card('beta');
    expect(after).not.toBe(first);
    expect(after.state).toBe('shipped');
    expect(after.card?.diff?.against).toEqual({ name: 'alpha', kind: 'base' });
  });
});

describe('bounds', () => {
  const detail = (name: string, size = 10): TemplateDetail =>
    ({ name, source: 'x'.repeat(size), shipped_source: null, card: { diff: null } }) as unknown as TemplateDetail;

  test(`at most ${MAX_NAMES} names, the least recently used dropped`, () => {
    const m = new AnswerMemo();
    for (let i = 0; i < MAX_NAMES + 10; i++) m.set(`t${i}`, 'k', detail(`t${i}`));
    expect(m.size().names).toBe(MAX_NAMES);
    expect(m.get('t0', 'k')).toBeNull();
    expect(m.get(`t${MAX_NAMES + 9}`, 'k')).not.toBeNull();
  });

  test('about MAX_BYTES of text; an answer bigger than that is not kept', () => {
    const m = new AnswerMemo();
    m.set('huge', 'k', detail('huge', MAX_BYTES));
    expect(m.get('huge', 'k')).toBeNull();
    const quarter = MAX_BYTES / 4 / 2;
    for (let i = 0; i < 6; i++) m.set(`q${i}`, 'k', detail(`q${i}`, quarter));
    expect(m.size().bytes).toBeLessThanOrEqual(MAX_BYTES);
    expect(m.get('q0', 'k')).toBeNull();
    expect(m.get('q5', 'k')).not.toBeNull();
  });

  test('one answer per name, under its key only', () => {
    const m = new AnswerMemo();
    m.set('a', 'k1', detail('a'));
    m.set('a', 'k2', detail('a'));
    expect(m.get('a', 'k1')).toBeNull();
    expect(m.get('a', 'k2')).not.toBeNull();
    expect(m.size().names).toBe(1);
  });
});
