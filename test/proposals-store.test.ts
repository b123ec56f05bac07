/**
 * The proposal store under the routes: a save cut at each instant never
 * shows a proposal pending whose template landed (nor saved when it did not),
 * odd files are logged, and creations and decisions are told.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { openProposalStore, type ProposalStoreOptions } from '../src/library/records/proposal.js';
import type { LibraryLogger } from '../src/library/context.js';
import type { Asker } from '../src/library/records/asker.js';
import type { Library } from '../src/library/types.js';
import { codeOf, type Fixture, fixture, tpl } from './library-helpers.js';

const GAMMA = tpl('gamma', 'gamma, proposed');
/** An editor on a desk with users, as the routes pass them. */
const editor = (person: string): Asker => ({ person, role: 'editor', address: '127.0.0.1' });
const sha = async (s: string) => `"${(await import('node:crypto')).createHash('sha256').update(s).digest('hex')}"`;

let fx: Fixture;
let library: Library;
beforeEach(async () => {
  fx = await fixture();
  library = await fx.open();
});
afterEach(async () => {
  await library.close();
  await rm(fx.base, { recursive: true, force: true });
});

/** A new library and store on the same root, as after a restart. */
async function restart(extra: Partial<ProposalStoreOptions> = {}) {
  await library.close();
  library = await fx.open();
  const store = openProposalStore({ library, ...extra });
  await store.ready();
  return store;
}

const onDisk = async (id: string) => JSON.parse(await readFile(join(fx.root, 'proposals', `${id}.json`), 'utf8'));

/** Throws at the n-th time `step` is announced, as a crash there would. */
function crashAt(step: string, n: number) {
  let seen = 0;
  return (s: string) => {
    if (s === step && ++seen === n) throw new Error(`crash at ${s}`);
  };
}

describe('a save cut short', () => {
  test('after the template landed, before the record: shown saved now, recorded saved at the next start', async () => {
    // record renames: the create's is the 1st, the intent's the 2nd, the decision's the 3rd
    const store = openProposalStore({ library, faults: crashAt('proposal:rename', 3) });
    const { id } = await store.create({ name: 'gamma', purpose: 'p', source: GAMMA });
    const saved = await store.save(id, {});
    expect(saved).toMatchObject({ status: 'saved', saved_as: 'gamma', etag: await sha(GAMMA) });
    expect(await readFile(join(fx.root, 'templates', 'gamma.yaml'), 'utf8')).toBe(GAMMA);
    // the decision never reached the disk: the intent stands, and reads already say saved
    expect(await onDisk(id)).toMatchObject({ status: 'pending', saving: { name: 'gamma', etag: await sha(GAMMA) } });
    expect(await store.get(id)).toMatchObject({ status: 'saved', etag: await sha(GAMMA) });
    expect((await store.list('decided')).map((p) => p.id)).toEqual([id]);

    const again = await restart();
    expect(await onDisk(id)).toMatchObject({ status: 'saved', saved_as: 'gamma', etag: await sha(GAMMA), saving: null });
    expect(await again.get(id)).toMatchObject({ status: 'saved' });
    expect(await again.pending()).toBe(0);
    expect(await codeOf(again.dismiss(id, null))).toBe('already_decided');
  });

  test('before the intent was written: the save fails, nothing landed, still pending', async () => {
    const store = openProposalStore({ library, faults: crashAt('proposal:rename', 2) });
    const { id } = await store.create({ name: 'gamma', purpose: 'p', source: GAMMA }); // the 1st rename; the intent's is cut
    await expect(store.save(id, {})).rejects.toThrow(/crash/);
    await expect(readFile(join(fx.root, 'templates', 'gamma.yaml'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await store.get(id))?.status).toBe('pending');
    expect((await (await restart()).get(id))?.status).toBe('pending');
  });

  test('the template save itself cut: the intent is dropped, still pending, and the next start agrees', async () => {
    await library.close();
    library = await fx.open({ faults: crashAt('copy:rename', 1) });
    const store = openProposalStore({ library });
    const { id } = await store.create({ name: 'gamma', purpose: 'p', source: GAMMA });
    await expect(store.save(id, {})).rejects.toThrow(/crash/);
    expect(await onDisk(id)).toMatchObject({ status: 'pending', saving: null });
    expect((await (await restart()).get(id))?.status).toBe('pending');
  });

  test("a save of the operator's edit cut after the template landed: recorded saved and edited at the next start", async () => {
    const store = openProposalStore({ library, faults: crashAt('proposal:rename', 3) });
    const { id } = await store.create({ name: 'gamma', purpose: 'p', source: GAMMA });
    const edited = GAMMA.replace('gamma, proposed', 'gamma, as the operator edited it');
    expect(await store.save(id, { source: edited })).toMatchObject({ status: 'saved', edited: true, etag: await sha(edited) });
    expect(await onDisk(id)).toMatchObject({ status: 'pending', saving: { name: 'gamma', edited: true } });
    expect(await store.get(id)).toMatchObject({ status: 'saved', edited: true });
    await restart();
    expect(await onDisk(id)).toMatchObject({ status: 'saved', edited: true, saving: null });
  });

  test('an intent whose template never landed (a crash before it) is dropped at the next start', async () => {
    const store = openProposalStore({ library });
    const { id } = await store.create({ name: 'gamma', purpose: 'p', source: GAMMA });
    const rec = await onDisk(id);
    await writeFile(
      join(fx.root, 'proposals', `${id}.json`),
      `${JSON.stringify({ ...rec, saving: { name: 'gamma', etag: await sha(GAMMA), at: rec.created_at } })}\n`,
    );
    const again = await restart();
    expect(await again.get(id)).toMatchObject({ status: 'pending', etag: null });
    expect(await onDisk(id)).toMatchObject({ status: 'pending', saving: null });
  });
});

test('odd files in proposals/ are logged once each and skipped', async () => {
  const store = openProposalStore({ library });
  const { id } = await store.create({ name: 'gamma', purpose: 'p', source: GAMMA });
  await writeFile(join(fx.root, 'proposals', 'notes.txt'), 'hello');
  await writeFile(join(fx.root, 'proposals', `${'0'.repeat(9)}-${'0'.repeat(20)}.json`), '{"torn":');
  const warned: object[] = [];
  const logger: LibraryLogger = { info() {}, warn: (o) => warned.push(o), error() {} };
  const again = await restart({ logger });
  expect((await again.list('all')).map((p) => p.id)).toEqual([id]);
  expect(warned).toEqual(
    expect.arrayContaining([
      { path: 'proposals/notes.txt', reason: 'not a proposal file' },
      { path: `proposals/${'0'.repeat(9)}-${'0'.repeat(20)}.json`, reason: 'not a proposal record' },
    ]),
  );
});

test('creations and decisions are told, a saved one under the name it was saved as', async () => {
  const told: [string, string, string, string | null][] = [];
  const store = openProposalStore({ library, onChange: (kind, p) => told.push([kind, p.status, p.saved_as ?? p.name, p.note]) });
  const a = await store.create({ name: 'gamma', purpose: 'p', source: GAMMA });
  const b = await store.create({ name: 'gamma', purpose: 'p', source: GAMMA });
  await store.save(a.id, { name: 'delta' });
  await store.dismiss(b.id, 'one is enough');
  expect(told).toEqual([
    ['created', 'pending', 'gamma', null],
    ['created', 'pending', 'gamma', null],
    ['decided', 'saved', 'delta', null],
    ['decided', 'dismissed', 'gamma', 'one is enough'],
  ]);
  // a refused decision tells nothing
  await codeOf(store.dismiss(a.id, null));
  expect(told).toHaveLength(4);
});

test("proposal.decided says whether the operator's edit was saved; a record kept before the field says it by its note", async () => {
  const seen: unknown[] = [];
  library.events.subscribe((e) => {
    if (e.type === 'proposal.decided') seen.push(e.data);
  });
  const store = openProposalStore({ library });
  const a = await store.create({ name: 'gamma', purpose: 'p', source: GAMMA });
  const b = await store.create({ name: 'gamma', purpose: 'p', source: GAMMA });
  await store.save(a.id, { source: GAMMA.replace('gamma, proposed', 'gamma, edited') });
  await store.dismiss(b.id, null);
  expect(seen).toEqual([expect.objectContaining({ id: a.id, status: 'saved', edited: true }), expect.objectContaining({ id: b.id, status: 'dismissed', edited: false })]);
  // as an older service wrote them: no `edited`
  for (const id of [a.id, b.id]) {
    const { edited: _, ...rec } = await onDisk(id);
    await writeFile(join(fx.root, 'proposals', `${id}.json`), `${JSON.stringify(rec)}\n`);
  }
  const again = await restart();
  expect(await again.get(a.id)).toMatchObject({ status: 'saved', edited: true });
  expect(await again.get(b.id)).toMatchObject({ status: 'dismissed', edited: false });
});

test('who decided is kept with the decision, through a save cut short too; a record kept before the field says null', async () => {
  const store = openProposalStore({ library, faults: crashAt('proposal:rename', 5) });
  const a = await store.create({ name: 'gamma', purpose: 'p', source: GAMMA });
  const b = await store.create({ name: 'gamma', purpose: 'p', source: GAMMA });
  expect(a.decided_by).toBeNull();
  expect(await store.dismiss(b.id, null, editor('ann'))).toMatchObject({ status: 'dismissed', decided_by: 'ann' });
  expect(await onDisk(b.id)).toMatchObject({ decided_by: 'ann' });
  // record renames: two creates, the dismissal, the save's intent; the 5th, the save's decision, is cut
  expect(await store.save(a.id, { name: 'delta' }, editor('bob'))).toMatchObject({ status: 'saved', decided_by: 'bob' });
  expect(await onDisk(a.id)).toMatchObject({ status: 'pending', saving: { name: 'delta', by: 'bob' } });
  const again = await restart();
  expect(await onDisk(a.id)).toMatchObject({ status: 'saved', decided_by: 'bob', saving: null });
  expect((await again.list('decided')).map((p) => [p.id, p.decided_by])).toEqual(
    expect.arrayContaining([
      [a.id, 'bob'],
      [b.id, 'ann'],
    ]),
  );
  // as an older service wrote it: no `decided_by`
  const { decided_by: _, ...rec } = await onDisk(b.id);
  await writeFile(join(fx.root, 'proposals', `${b.id}.json`), `${JSON.stringify(rec)}\n`);
  expect(await (await restart()).get(b.id)).toMatchObject({ status: 'dismissed', decided_by: null });
});

test('ids sort by creation and differ within one millisecond', async () => {
  let t = Date.parse('2026-06-01T00:00:00Z');
  const store = openProposalStore({ library, now: () => t });
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push((await store.create({ name: 'gamma', purpose: 'p', source: GAMMA })).id);
  t += 1;
  ids.push((await store.create({ name: 'gamma', purpose: 'p', source: GAMMA })).id);
  expect(new Set(ids).size).toBe(4);
  expect(ids[3]! > ids[0]! && ids[3]! > ids[1]! && ids[3]! > ids[2]!).toBe(true);
  expect((await store.list('pending'))[0]!.id).toBe(ids[3]);
});

describe('a read that fails for a passing reason', () => {
  /** Fails the next `n` record reads with `code`, as a process out of file descriptors would. */
  function failingReads() {
    const f = { n: 0, code: 'EMFILE', seen: 0 };
    const hook = (s: string) => {
      if (s !== 'proposal:read' || f.n === 0) return;
      f.n -= 1;
      f.seen += 1;
      throw Object.assign(new Error(`${f.code}: too many open files`), { code: f.code });
    };
    return { f, hook };
  }

  test('EMFILE keeps the record listed and decidable: 503 record_unreadable only after two more tries, then it reads', async () => {
    const { f, hook } = failingReads();
    const store = openProposalStore({ library, faults: hook });
    const { id } = await store.create({ name: 'gamma', purpose: 'p', source: GAMMA });
    f.n = 3;
    await expect(store.get(id)).rejects.toMatchObject({ code: 'record_unreadable', status: 503 });
    expect(f.seen).toBe(3);
    expect((await store.list('pending')).map((p) => p.id)).toEqual([id]);
    expect(await store.pending()).toBe(1);
    // one failure, then the retry reads it
    f.n = 1;
    expect(await store.get(id)).toMatchObject({ id, status: 'pending' });
    f.n = 2;
    f.code = 'EIO';
    expect(await store.dismiss(id, 'later')).toMatchObject({ id, status: 'dismissed' });
    expect(await onDisk(id)).toMatchObject({ status: 'dismissed', note: 'later' });
  });

  test('a gone file still leaves the index', async () => {
    const store = openProposalStore({ library });
    const { id } = await store.create({ name: 'gamma', purpose: 'p', source: GAMMA });
    await rm(join(fx.root, 'proposals', `${id}.json`));
    expect(await store.get(id)).toBeNull();
    expect(await store.list('all')).toEqual([]);
  });

  test('a record the start could not read is listed once a later call reads it', async () => {
    const first = openProposalStore({ library });
    const { id } = await first.create({ name: 'gamma', purpose: 'p', source: GAMMA });
    const { f, hook } = failingReads();
    f.n = 1_000;
    f.code = 'ENFILE';
    const store = await restart({ faults: hook });
    expect(await store.list('all')).toEqual([]);
    f.n = 0;
    await expect.poll(async () => (await store.list('pending')).map((p) => p.id), { timeout: 5000, interval: 200 }).toEqual([id]);
    expect(await store.get(id)).toMatchObject({ id, status: 'pending' });
  });
});
