/**
 * The one record store (src/library/records/store.ts) over a kind of its
 * own: what the store does is the store's whatever the kind — the folder and
 * file the kind names, its refusals past the pending bound and the record
 * cap, a decision that ends a wait at once, one decision only, retention —
 * so a third kind needs nothing but its kind (records/kind.ts).
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { DeskError } from '../src/errors.js';
import { formatRecord, parseShape, type RecordKind } from '../src/library/records/kind.js';
import { openRecordCore, type RecordCore } from '../src/library/records/store.js';
import type { Library } from '../src/library/types.js';

interface Note {
  v: 1;
  id: string;
  status: 'pending' | 'kept' | 'dismissed';
  text: string;
  created_at: string;
  decided_at: string | null;
  decided_by: string | null;
}
type NoteSummary = Omit<Note, 'v' | 'text'>;

const NOTE_KIND: RecordKind<Note, NoteSummary, 'written'> = {
  folder: 'notes',
  what: 'note',
  plural: 'notes',
  noun: 'note',
  file: /^([0-9a-z]{9}-[0-9a-f]{20})\.json$/,
  cap: 200,
  path: (id) => ['notes', `${id}.json`],
  parse: (text, id) => {
    const r = parseShape(text, id, { statuses: ['pending', 'kept', 'dismissed'], strings: ['text', 'created_at'], nullable: ['decided_at'] });
    return r && ({ ...r, decided_by: r.decided_by ?? null } as unknown as Note);
  },
  summary: ({ v: _, text: __, ...s }) => s,
  about: () => ({}),
  created: 'written',
  commitMessage: (change, s) => `note ${s.id} ${change}`,
  event: () => null,
  tooMany: (count) => new DeskError('too_many_proposals', `${count} notes wait`),
  tooLarge: (cap) => new DeskError('invalid_proposal', `over ${cap} bytes`),
  perHour: 0,
};

const codeOf = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (e) {
    return (e as DeskError).code;
  }
  return null;
};

describe('the record store over a kind of its own', () => {
  let root: string;
  let core: RecordCore<Note, NoteSummary, 'written'>;
  let t: number;
  const open = (o: { maxPending?: number; decidedKeep?: number } = {}) =>
    openRecordCore(NOTE_KIND, { library: { root } as unknown as Library, now: () => t, ...o });
  const write = (c: typeof core, text: string) =>
    c.create(
      null,
      () => text,
      (checked, id, created_at): Note => ({ v: 1, id, status: 'pending', text: checked, created_at, decided_at: null, decided_by: null }),
    );
  const files = async () => (await readdir(join(root, 'notes')).catch(() => [] as string[])).sort();

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'desk-records-'));
    t = Date.parse('2026-12-01T12:00:00Z');
    core = open();
  });
  afterEach(async () => {
    core.face((r) => r).close();
    await rm(root, { recursive: true, force: true });
  });

  test("a create writes the kind's file, formatted once, and the list and count follow", async () => {
    const { rec } = await write(core, 'hello');
    expect(await files()).toEqual([`${rec.id}.json`]);
    expect(await readFile(join(root, 'notes', `${rec.id}.json`), 'utf8')).toBe(formatRecord(rec));
    const face = core.face((r) => r.text);
    expect(await face.pending()).toBe(1);
    expect((await face.list('pending')).map((s) => s.id)).toEqual([rec.id]);
    expect(await face.get(rec.id)).toBe('hello');
  });

  test("past the pending bound and over the cap, the kind's refusals, and nothing is written", async () => {
    core = open({ maxPending: 1 });
    await write(core, 'one');
    expect(await codeOf(write(core, 'two'))).toBe('too_many_proposals');
    expect(await files()).toHaveLength(1);
    core = open();
    expect(await codeOf(write(core, 'x'.repeat(300)))).toBe('invalid_proposal');
    expect(await files()).toHaveLength(1);
  });

  test('a decision ends a wait at once and is the only one: a second is already_decided, an unknown id not_found', async () => {
    const { rec } = await write(core, 'wait on me');
    const face = core.face((r) => r);
    const started = Date.now();
    const waited = face.getWhenDecided(rec.id, 30_000);
    await core.serial(async () => core.decide(await core.undecided(rec.id), 'kept', 'ann'));
    expect(await waited).toMatchObject({ id: rec.id, status: 'kept', decided_by: 'ann' });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await codeOf(core.undecided(rec.id))).toBe('already_decided');
    expect(await codeOf(core.undecided('0000000aa-00000000000000000000'))).toBe('not_found');
    expect(JSON.parse(await readFile(join(root, 'notes', `${rec.id}.json`), 'utf8'))).toMatchObject({ status: 'kept', decided_by: 'ann' });
  });

  test('decided records past the kept count leave the folder; pending ones stay', async () => {
    core = open({ decidedKeep: 1 });
    const ids: string[] = [];
    for (const text of ['a', 'b', 'c']) {
      t += 1000;
      ids.push((await write(core, text)).rec.id);
    }
    for (const id of ids.slice(0, 2)) {
      t += 1000;
      await core.serial(async () => core.decide(await core.undecided(id), 'dismissed', null));
    }
    expect(await files()).toEqual([`${ids[1]}.json`, `${ids[2]}.json`].sort());
  });
});
