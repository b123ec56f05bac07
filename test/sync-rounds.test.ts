/**
 * Two desks, one library (docs/history.md, Sync): two apps on two roots
 * sharing one bare repository on disk, synced by hand (POST /sync) so each
 * step is in the test's order — a save during a round, merges, conflicts and
 * how a person settles them, removals, resets, roles, a restart, the round's
 * one event, a long round answered 202, proposals. Each test drives two
 * desks through several rounds, git at every step: `npm run test:proof`
 * runs this file (vitest.proof.config.ts, PROOF_ONLY); test/sync.test.ts
 * keeps one round of two desks and the single-desk cases in `npm test`.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { LibraryWatcher } from '../src/library/events/watch.js';
import { openLibrary } from '../src/library/library.js';
import type { Library } from '../src/library/types.js';
import { ALPHA, API, BETA, fixture } from './http-fixture.js';
import { alphaPurpose, type Desk, get, HOUR, openDesk, save, sync, until } from './sync-desks.js';
import { testSpawner } from './test-spawner.js';

let bare: string;
let desks: Desk[] = [];

const desk = (remote = bare): Promise<Desk> => openDesk(remote, desks);

/** A desk over a library the test holds, to subscribe to its events bus. */
async function listeningDesk(): Promise<Desk & { library: Library }> {
  const fx = await fixture();
  const library = await openLibrary({ spawner: testSpawner, root: fx.root, harnessDir: fx.harness, sync: { remote: bare, intervalMs: HOUR } });
  const app = await buildApp({ library, web: false });
  const d = { fx, app, library };
  desks.push(d);
  await app.ready();
  return d;
}

/** git in a desk's root */
const git = (d: Desk, ...args: string[]): string => execFileSync('git', ['-C', d.fx.root!, ...args], { encoding: 'utf8' }).trim();

beforeEach(async () => {
  bare = await mkdtemp(join(tmpdir(), 'desk-remote-'));
  execFileSync('git', ['init', '--bare', '-q', '-b', 'main', bare]);
});

afterEach(async () => {
  for (const d of desks) {
    await d.app.close();
    await d.library?.close();
    await d.fx.cleanup();
  }
  desks = [];
  await rm(bare, { recursive: true, force: true });
});

const alphaWith = (profile: string) => ALPHA.replace('work: { type: model, role: worker, profile: read_only }', `work: { type: model, role: worker, profile: ${profile} }`);

describe('sync with a remote', () => {
  it('a save landing during a round gets a commit of its own, in the order the writes happened', async () => {
    const a = await desk();
    await save(a, 'alpha', alphaPurpose('from A'));
    await sync(a);
    // B's library calls back at every file step: when the round starts writing alpha, two saves come in
    let armed = false;
    let late: Promise<unknown> | null = null;
    const fx = await fixture();
    const library: Library = await openLibrary({ spawner: testSpawner,
      root: fx.root,
      harnessDir: fx.harness,
      faults: async (step) => {
        if (!armed || !step.startsWith('intent')) return;
        armed = false;
        // another name: lands before the round's commit; alpha itself: waits for the round's slot, lands after it
        await library.saveTemplate('mine', ALPHA.replace('name: alpha', 'name: mine'), { who: 'during' });
        late = library.saveTemplate('alpha', alphaPurpose('after the round'), { who: 'after' });
      },
      sync: { remote: bare, intervalMs: HOUR },
    });
    const app = await buildApp({ library, web: false });
    const b = { fx, app, library };
    desks.push(b);
    await app.ready();
    armed = true;
    await sync(b);
    expect(late).not.toBeNull();
    await late;
    await library.history.settle();
    const git = (...args: string[]) => execFileSync('git', ['-C', fx.root!, ...args], { encoding: 'utf8' });
    // newest first: subject, parents, Who trailer
    const log = git('log', '--format=%s%x09%P%x09%(trailers:key=Who,valueonly,separator=)', '-n', '4')
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(log.map(([s]) => s)).toEqual(['save alpha (edited)', expect.stringMatching(/^sync with /), 'save mine', expect.any(String)]);
    expect(log[0]![2]).toBe('after');
    expect(log[1]![1]!.split(' ')).toHaveLength(2);
    expect(log[2]![2]).toBe('during');
    expect(git('show', 'HEAD:templates/alpha.yaml')).toBe(alphaPurpose('after the round'));
    expect(git('show', 'HEAD~1:templates/alpha.yaml')).toBe(alphaPurpose('from A'));
    expect(git('status', '--porcelain')).toBe('');
  });

  it('edits of different templates on both desks both survive', async () => {
    const [a, b] = [await desk(), await desk()];
    await save(a, 'alpha', alphaPurpose('from A'));
    await save(b, 'beta', BETA.replace('purpose: alpha with a review', 'purpose: from B'));
    await save(b, 'mine', ALPHA.replace('name: alpha', 'name: mine'));
    await sync(a);
    await sync(b);
    await sync(a);
    for (const d of [a, b]) {
      expect((await get(d, 'alpha')).source).toBe(alphaPurpose('from A'));
      expect((await get(d, 'beta')).source).toContain('purpose: from B');
      expect((await get(d, 'mine')).state).toBe('custom');
    }
  });

  it('changes to different lines of one template merge', async () => {
    const [a, b] = [await desk(), await desk()];
    await sync(b);
    // each desk pushes after its commit: A's lands first, so B is the one that merges
    await save(a, 'alpha', alphaPurpose('from A'));
    await sync(a);
    await save(b, 'alpha', alphaWith('workspace_write'));
    const s = await sync(b);
    expect(s.diverged).toEqual([]);
    const merged = alphaPurpose('from A').replace('profile: read_only }', 'profile: workspace_write }');
    expect((await get(b, 'alpha')).source).toBe(merged);
    await sync(a);
    expect((await get(a, 'alpha')).source).toBe(merged);
  });

  it('a conflict keeps the local copy as diverged; rebasing onto the remote settles it on both desks', async () => {
    const [a, b] = [await desk(), await desk()];
    await sync(b);
    await save(a, 'alpha', alphaPurpose('purpose of A'));
    await sync(a);
    const mine = await save(b, 'alpha', alphaPurpose('purpose of B'));
    const s = await sync(b);
    expect(s.diverged).toEqual(['alpha']);
    const local = await get(b, 'alpha');
    expect(local).toMatchObject({ state: 'diverged', source: alphaPurpose('purpose of B'), etag: mine.etag });
    const other = (await b.app.inject({ method: 'GET', url: `${API}/sync/templates/alpha` })).json();
    expect(other.remote_source).toBe(alphaPurpose('purpose of A'));
    // the remote's version is in this desk's history: the diff against it is the ordinary one
    const diff = await b.app.inject({ method: 'GET', url: `${API}/templates/alpha/diff?against=version:${other.remote}` });
    expect(diff.statusCode).toBe(200);
    expect(diff.json().identical).toBe(false);

    const rebase = (await b.app.inject({ method: 'POST', url: `${API}/sync/templates/alpha/rebase` })).json();
    expect(rebase.conflicts).toBe(1);
    // the markers name the side for what it is
    expect(rebase.merged).toContain('=======\n  purpose: purpose of A\n>>>>>>> remote\n');
    // over the shipped bytes both copies were made from: only the purpose line conflicts
    expect(rebase.parts.filter((p: { kind: string }) => p.kind === 'clean').length).toBeGreaterThan(0);
    expect(rebase.parts.find((p: { kind: string }) => p.kind === 'conflict')).toMatchObject({ copy: '  purpose: purpose of B\n', theirs: '  purpose: purpose of A\n' });
    // the page offers each conflict as a choice: take the remote's side
    const chosen = rebase.parts.map((p: { kind: string; text?: string; theirs?: string }) => (p.kind === 'clean' ? p.text : p.theirs)).join('');
    expect(chosen).toBe(alphaPurpose('purpose of A'));
    const saved = await save(b, 'alpha', alphaPurpose('purpose of A and B'), local.etag);
    expect(saved.state).toBe('edited');
    const after = await sync(b);
    expect(after.diverged).toEqual([]);
    await sync(a);
    expect((await get(a, 'alpha')).source).toBe(alphaPurpose('purpose of A and B'));
    expect((await sync(a)).diverged).toEqual([]);
  });

  it('keep mine settles a conflict with the local copy, which the other desk then gets', async () => {
    const [a, b] = [await desk(), await desk()];
    await sync(b);
    await save(a, 'beta', BETA.replace('purpose: alpha with a review', 'purpose: A'));
    await sync(a);
    await save(b, 'beta', BETA.replace('purpose: alpha with a review', 'purpose: B'));
    expect((await sync(b)).diverged).toEqual(['beta']);
    const stale = await b.app.inject({ method: 'POST', url: `${API}/sync/templates/beta/keep`, headers: { 'if-match': '"0000"' } });
    expect(stale.statusCode).toBe(412);
    const etag = (await get(b, 'beta')).etag;
    const kept = await b.app.inject({ method: 'POST', url: `${API}/sync/templates/beta/keep`, headers: { 'if-match': etag } });
    expect(kept.statusCode).toBe(200);
    expect(kept.json().diverged).toEqual([]);
    expect((await get(b, 'beta')).state).toBe('edited');
    const again = await b.app.inject({ method: 'POST', url: `${API}/sync/templates/beta/keep` });
    expect(again.json().code).toBe('state_conflict');
    // the decision is an ordinary commit of B's copy, published by B's next push
    await sync(b);
    expect(git(b, 'log', '-3', '--format=%s').split('\n')).toContain(`keep mine: beta (diverged with ${bare})`);
    await sync(a);
    expect((await get(a, 'beta')).source).toContain('purpose: B');
  });

  it('a merge that does not validate is a conflict, never written', async () => {
    const [a, b] = [await desk(), await desk()];
    await sync(b);
    // A removes the gate's cord, B points the cord at a new node: each valid, together a dangling cord
    const cut = ALPHA.replace('  gate: { type: builtin, builtin: human_gate }\n', '').replace('cords:\n  - { from: work.done, to: gate.in }\n', 'cords: []\n');
    await save(a, 'alpha', cut);
    await sync(a);
    await save(b, 'alpha', ALPHA.replace('  - { from: work.done, to: gate.in }\n', '  - { from: work.done, to: gate.in }\n  - { from: gate.approved, to: work.start }\n'));
    const s = await sync(b);
    expect(s.diverged).toEqual(['alpha']);
    expect((await get(b, 'alpha')).valid).toBe(true);
  });

  it('a custom template removed on one desk goes on the other', async () => {
    const [a, b] = [await desk(), await desk()];
    await save(a, 'mine', ALPHA.replace('name: alpha', 'name: mine'));
    await sync(a);
    await sync(b);
    expect((await get(b, 'mine')).state).toBe('custom');
    expect((await a.app.inject({ method: 'DELETE', url: `${API}/templates/mine` })).statusCode).toBe(204);
    await sync(a);
    await sync(b);
    expect((await b.app.inject({ method: 'GET', url: `${API}/templates/mine` })).statusCode).toBe(404);
    expect(await b.fx.read('templates', 'mine.yaml')).toBeNull();
  });

  it('a copy reset on one desk is reset on the other: the shipped bytes load again', async () => {
    const [a, b] = [await desk(), await desk()];
    const saved = await save(a, 'alpha', alphaPurpose('a copy'));
    await sync(a);
    await sync(b);
    expect((await get(b, 'alpha')).state).toBe('edited');
    const reset = await a.app.inject({ method: 'POST', url: `${API}/settings/template-reset`, payload: { name: 'alpha' }, headers: { 'if-match': saved.etag } });
    expect(reset.statusCode).toBe(200);
    await sync(a);
    await sync(b);
    expect((await get(b, 'alpha')).state).toBe('shipped');
    expect(await b.fx.read('templates', 'alpha.yaml')).toBeNull();
    expect(await b.fx.read('templates', '.alpha.shipped')).toBeNull();
  });

  it('roles: a change on one side is taken; changes on both diverge, and keep settles them', async () => {
    const [a, b] = [await desk(), await desk()];
    await sync(b);
    const role = (d: Desk, md: string) => d.app.inject({ method: 'POST', url: `${API}/role`, payload: { name: 'worker', role_md: md } });
    expect((await role(a, '# Worker\n\nFrom A.\n')).statusCode).toBe(200);
    await sync(a);
    await sync(b);
    const got = (await b.app.inject({ method: 'GET', url: `${API}/roles/worker` })).json();
    expect(got.role_md).toBe('# Worker\n\nFrom A.\n');
    await role(a, '# Worker\n\nA again.\n');
    await sync(a);
    await role(b, '# Worker\n\nB instead.\n');
    const s = await sync(b);
    expect(s.diverged_roles).toEqual(['worker']);
    const r = await b.app.inject({ method: 'GET', url: `${API}/roles/worker` });
    expect(r.json()).toMatchObject({ state: 'diverged', role_md: '# Worker\n\nB instead.\n' });
    const kept = await b.app.inject({ method: 'POST', url: `${API}/sync/roles/worker/keep`, headers: { 'if-match': r.headers.etag as string } });
    expect(kept.json().diverged_roles).toEqual([]);
  });

  it('a diverged name stays diverged across a restart', async () => {
    const [a, b] = [await desk(), await desk()];
    await sync(b);
    await save(a, 'alpha', alphaPurpose('A'));
    await sync(a);
    await save(b, 'alpha', alphaPurpose('B'));
    expect((await sync(b)).diverged).toEqual(['alpha']);
    await b.app.close();
    b.app = await b.fx.open({ sync: { remote: bare, intervalMs: HOUR } });
    await b.app.ready();
    expect((await b.app.inject({ method: 'GET', url: `${API}/sync` })).json().diverged).toEqual(['alpha']);
    expect((await get(b, 'alpha')).state).toBe('diverged');
  });

  it('a round is announced once, as library.synced, with the names it wrote or marked diverged', async () => {
    const a = await desk();
    const b = await listeningDesk();
    await sync(b);
    const heard: { type: string; data: unknown }[] = [];
    b.library.events.subscribe((e) => heard.push({ type: e.type, data: e.data }));
    await save(a, 'alpha', alphaPurpose('A'));
    await save(a, 'mine', ALPHA.replace('name: alpha', 'name: mine'));
    await sync(a);
    await sync(b);
    // one event for the round, none per name
    expect(heard).toEqual([{ type: 'library.synced', data: { round: expect.any(String), changed: 2, diverged: 0, names: ['template:alpha', 'template:mine'], diverged_detail: [] } }]);
    heard.length = 0;
    await save(a, 'beta', BETA.replace('purpose: alpha with a review', 'purpose: A'));
    await sync(a);
    await save(b, 'beta', BETA.replace('purpose: alpha with a review', 'purpose: B'));
    heard.length = 0;
    await sync(b);
    expect(heard).toEqual([
      { type: 'library.synced', data: expect.objectContaining({ changed: 1, diverged: 1, names: ['template:beta'], diverged_detail: [{ name: 'beta', kind: 'template', reason: 'conflict', problems: [] }] }) },
    ]);
  });

  it("with a live stream's watcher running, a round is still told once: its files are never announced name by name", async () => {
    const a = await desk();
    const b = await listeningDesk();
    await sync(b);
    let relists = 0;
    // watching the folders and relisting often, as an open stream's watcher does
    const watcher = new LibraryWatcher(b.library, b.library.events, { relistMs: 50, settleMs: 10, onLook: (what) => void (what === 'relist' && relists++) });
    try {
      watcher.start();
      await until(() => relists >= 1);
      const heard: string[] = [];
      b.library.events.subscribe((e) => heard.push(e.type));
      for (let i = 0; i < 40; i++) await save(a, `t-${i}`, ALPHA.replace('name: alpha', `name: t-${i}`));
      await sync(a);
      await sync(b);
      // relists after the round's end: each would announce what it found changed
      const after = relists;
      await until(() => relists >= after + 3);
      expect(heard).toEqual(['library.synced']);
    } finally {
      watcher.dispose();
    }
  });

  it('POST /sync answers 202 with the round when it outlasts its wait; GET /sync follows it', async () => {
    const a = await desk();
    await sync(a);
    const fx = await fixture();
    // a wait of 1 ms: any round that runs git outlasts it
    const app = await fx.open({ sync: { remote: bare, intervalMs: HOUR, waitMs: 1 } });
    desks.push({ fx, app });
    await app.ready();
    const status = async () => (await app.inject({ method: 'GET', url: `${API}/sync` })).json();
    // the round the start runs by itself, done first
    while ((await status()).last_sync === null) await new Promise((r) => setTimeout(r, 20));
    for (let i = 0; i < 30; i++) await save(a, `t-${i}`, ALPHA.replace('name: alpha', `name: t-${i}`));
    await sync(a);
    const r = await app.inject({ method: 'POST', url: `${API}/sync` });
    expect(r.statusCode).toBe(202);
    const round = r.json().round;
    expect(round).toMatchObject({ id: expect.any(String), state: 'running', started_at: expect.any(String) });
    let s = await status();
    while (s.round) {
      expect(s.round.id).toBe(round.id);
      expect(s.round.done).toBeLessThanOrEqual(s.round.total);
      await new Promise((r) => setTimeout(r, 20));
      s = await status();
    }
    expect(s).toMatchObject({ behind: 0, last_error: null });
    expect((await app.inject({ method: 'GET', url: `${API}/templates/t-29` })).statusCode).toBe(200);
  });

  it('a proposal made or decided on one desk is listed on the other after its sync, without a restart', async () => {
    const a = await desk();
    const b = await listeningDesk();
    await sync(b);
    const list = async (d: Desk, status = 'all') => (await d.app.inject({ url: `${API}/proposals?status=${status}` })).json();
    // B's index is read before the proposal exists anywhere
    expect(await list(b)).toEqual({ pending: 0, kept_decided: { count: 0, limit: 1000 }, proposals: [] });
    const heard: unknown[] = [];
    b.library.events.subscribe((e) => heard.push({ type: e.type, ...e.data }));
    const made = await a.app.inject({ method: 'POST', url: `${API}/proposals`, payload: { name: 'gamma', purpose: 'from A', source: ALPHA.replace('name: alpha', 'name: gamma') } });
    expect(made.statusCode).toBe(201);
    const id = made.json().id as string;
    await sync(a);
    await sync(b);
    expect(await list(b, 'pending')).toMatchObject({ pending: 1, proposals: [{ id, status: 'pending', name: 'gamma', purpose: 'from A' }] });
    expect((await b.app.inject({ url: `${API}/proposals/${id}` })).json()).toMatchObject({ id, status: 'pending', valid: true });
    expect(heard).toContainEqual({ type: 'proposal.created', id, status: 'pending', name: 'gamma', etag: null, note: null });
    expect((await a.app.inject({ method: 'POST', url: `${API}/proposals/${id}/dismiss`, payload: { note: 'not now' } })).statusCode).toBe(200);
    await sync(a);
    await sync(b);
    expect(await list(b)).toMatchObject({ pending: 0, proposals: [{ id, status: 'dismissed', note: 'not now' }] });
    // who decided on desk A (its client address: A knows no users) travels with the record
    expect(heard).toContainEqual({ type: 'proposal.decided', id, status: 'dismissed', name: 'gamma', etag: null, note: 'not now', edited: false, who: '127.0.0.1' });
    expect(await list(b)).toMatchObject({ proposals: [{ id, decided_by: '127.0.0.1' }] });
  });

});
