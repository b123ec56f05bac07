/**
 * The record stores' rules that turn on who asks (src/library/records/asker.ts),
 * over HTTP on a desk with users: a conductor withdraws only its own drafts,
 * an editor any; the hourly allowances count per person; a record's commits
 * carry the person who made it.
 */
import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, test } from 'vitest';
import { type App, buildApp } from '../src/app.js';
import { tokenDigest, type UserEntry } from '../src/http/users.js';
import { UserDirectory } from '../src/http/users-directory.js';
import { openLibrary } from '../src/library/library.js';
import type { RecordsOptions } from '../src/library/records.js';
import type { Library } from '../src/library/types.js';
import { ALPHA, API, type Fixture, fixture } from './http-fixture.js';
import { TOKENS, USERS, writeUsers } from './users-fixture.js';
import { testSpawner } from './test-spawner.js';

const CORA = 'conductor-token-cora-0123456789abcdef';
/** the fixture's people and a second conductor */
const PEOPLE: UserEntry[] = [...USERS, { name: 'cora', role: 'conductor', token_sha256: tokenDigest(CORA), email: 'cora@example.org' }];
type Person = keyof typeof TOKENS | 'cora';
const tokenOf = (p: Person) => (p === 'cora' ? CORA : TOKENS[p]);

let fx: Fixture;
let library: Library;
let app: App;

async function open(records: RecordsOptions = {}): Promise<void> {
  fx = await fixture();
  const users = UserDirectory.open({ file: await writeUsers(fx.dir, PEOPLE) });
  library = await openLibrary({ spawner: testSpawner, root: fx.root!, harnessDir: fx.harness, records, history: { author: 'Desk One <desk@one.example>', authorOf: (w) => users.authorOf(w) } });
  app = await buildApp({ library, web: false, users, authRate: { max: 1_000_000 } });
  await app.ready();
}

afterEach(async () => {
  await app?.close();
  await library?.close();
  await fx?.cleanup();
});

const post = (who: Person, path: string, payload: object = {}, headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url: `${API}${path}`, headers: { authorization: `Bearer ${tokenOf(who)}`, 'content-type': 'application/json', ...headers }, payload });
const get = (who: Person, path: string) => app.inject({ url: `${API}${path}`, headers: { authorization: `Bearer ${tokenOf(who)}` } });
/** `author | Who:` of the last commit that touched `path` */
const lastCommit = (path: string) => execFileSync('git', ['-C', fx.root!, 'log', '-1', '--format=%an <%ae>|%(trailers:key=Who,valueonly)', '--', path], { encoding: 'utf8' }).trim();
const draft = async (who: Person) => {
  const r = await post(who, '/launches', { template: 'alpha', inputs: {} });
  expect(r.statusCode).toBe(201);
  return r.json().id as string;
};

describe('withdraw', () => {
  test("a conductor withdraws its own draft; another conductor's withdraw is 403 forbidden and the draft stays pending", async () => {
    await open();
    const mine = await draft('carl');
    const theirs = await draft('cora');
    const refused = await post('carl', `/launches/${theirs}/withdraw`);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'forbidden', needed_role: 'editor' });
    expect((await get('ann', `/launches/${theirs}`)).json()).toMatchObject({ status: 'pending', decided_by: null });
    expect(JSON.parse((await fx.read('launches', `${theirs}.json`))!)).toMatchObject({ status: 'pending', from: 'cora' });
    expect((await post('carl', `/launches/${mine}/withdraw`)).json()).toMatchObject({ status: 'withdrawn', decided_by: 'carl' });
  });

  test("an editor withdraws anyone's draft", async () => {
    await open();
    const id = await draft('cora');
    expect((await post('ann', `/launches/${id}/withdraw`)).json()).toMatchObject({ status: 'withdrawn', decided_by: 'ann' });
  });

  test('the store holds the rule for any caller, not only the route', async () => {
    await open();
    const id = await draft('cora');
    const carl = { person: 'carl', role: 'conductor' as const, address: '127.0.0.1' };
    await expect(library.launches.withdraw(id, carl)).rejects.toMatchObject({ code: 'forbidden' });
    expect((await library.launches.get(id))?.rec.status).toBe('pending');
  });
});

describe('hourly allowances, per person', () => {
  test('the 121st draft in an hour is 429 with Retry-After; a second person from the same address is still allowed', async () => {
    let t = Date.UTC(2026, 0, 1);
    await open({ launches: { now: () => t } });
    for (let i = 0; i < 120; i++) await draft('carl');
    const over = await post('carl', '/launches', { template: 'alpha', inputs: {} });
    expect(over.statusCode).toBe(429);
    expect(over.json().code).toBe('too_many_requests');
    // 3600 s / 120: one more each 30 s
    expect(over.headers['retry-after']).toBe('30');
    expect((await library.launches.list('all')).length).toBe(120);
    // cora asks from the same address (inject's 127.0.0.1): her own allowance
    expect((await post('cora', '/launches', { template: 'alpha', inputs: {} })).statusCode).toBe(201);
    t += 30_000;
    expect((await post('carl', '/launches', { template: 'alpha', inputs: {} })).statusCode).toBe(201);
  });

  test('proposals count per person too', async () => {
    const t = Date.UTC(2026, 0, 1);
    await open({ proposals: { perHour: 2, now: () => t } });
    const propose = (who: Person) => post(who, '/proposals', { name: 'gamma', purpose: 'p', source: ALPHA.replace('name: alpha', 'name: gamma') });
    expect((await propose('carl')).statusCode).toBe(201);
    expect((await propose('carl')).statusCode).toBe(201);
    const over = await propose('carl');
    expect(over.statusCode).toBe(429);
    expect(over.headers['retry-after']).toBe('1800');
    expect((await propose('cora')).statusCode).toBe(201);
    expect((await library.proposals.list('all')).map((p) => p.from).sort()).toEqual(['carl', 'carl', 'cora']);
  });

  test('DESK_LAUNCHES_PER_HOUR 0 sets no limit', async () => {
    await open({ launches: { perHour: 0 } });
    for (let i = 0; i < 3; i++) await draft('carl');
    expect((await library.launches.list('all')).length).toBe(3);
  });
});

describe('authorship', () => {
  test("a proposal's and a draft's commits are authored by the person who made them, not the desk", async () => {
    await open();
    const p = (await post('cora', '/proposals', { name: 'gamma', purpose: 'p', source: ALPHA.replace('name: alpha', 'name: gamma') })).json();
    const id = await draft('carl');
    await expect.poll(() => lastCommit(`proposals/${p.id}.json`), { timeout: 5000 }).toBe('cora <cora@example.org>|cora');
    await expect.poll(() => lastCommit(`launches/${id}.json`), { timeout: 5000 }).toBe('carl <carl@desk>|carl');
    // a decision stays the decider's
    await post('ann', `/launches/${id}/dismiss`, { note: 'no' });
    await expect.poll(() => lastCommit(`launches/${id}.json`), { timeout: 5000 }).toBe('ann <ann@example.org>|ann');
    execFileSync('git', ['-C', fx.root!, 'fsck', '--strict'], { stdio: 'pipe' });
  });
});

describe("a proposal's save", () => {
  const body = (path: string) => execFileSync('git', ['-C', fx.root!, 'log', '-1', '--format=%B', '--', path], { encoding: 'utf8' }).trim();
  const trailers = (path: string) =>
    execFileSync('git', ['-C', fx.root!, 'log', '-1', '--format=%(trailers:only,unfold)', '--', path], { encoding: 'utf8' }).trim().split('\n');

  test('of a new name: `save <name> from proposal <id>`, Proposed-by beside Who, replaced null; history shows it', async () => {
    await open();
    const p = (await post('carl', '/proposals', { name: 'gamma', purpose: 'p', source: ALPHA.replace('name: alpha', 'name: gamma') })).json();
    const saved = await post('ann', `/proposals/${p.id}/save`);
    expect(saved.statusCode).toBe(200);
    expect(saved.json()).toMatchObject({ status: 'saved', replaced: null, decided_by: 'ann' });
    await expect.poll(() => body('templates/gamma.yaml'), { timeout: 5000 }).toBe(`save gamma from proposal ${p.id}\n\nProposed-by: carl\nWho: ann`);
    expect(trailers('templates/gamma.yaml')).toEqual(['Proposed-by: carl', 'Who: ann']);
    expect(lastCommit('templates/gamma.yaml')).toBe('ann <ann@example.org>|ann');
    const versions = (await get('vera', '/templates/gamma/history')).json().versions;
    expect(versions[0]).toMatchObject({ message: `save gamma from proposal ${p.id}`, who: 'ann', author: 'ann <ann@example.org>' });
    expect(JSON.parse((await fx.read('proposals', `${p.id}.json`))!).replaced).toBeNull();
  });

  test("over the operator's edited copy, with If-Match and their edits: replaced {etag, state: edited}, `, with the operator's edits`", async () => {
    await open();
    const mine = ALPHA.replace('one worker then a gate', 'my own purpose');
    const put = await app.inject({ method: 'PUT', url: `${API}/templates/alpha`, headers: { authorization: `Bearer ${TOKENS.ann}`, 'content-type': 'application/json', 'if-match': (await get('ann', '/templates/alpha')).headers.etag as string }, payload: { source: mine } });
    expect(put.json()).toMatchObject({ state: 'edited' });
    const etag = put.headers.etag as string;
    const p = (await post('carl', '/proposals', { name: 'alpha', purpose: 'p', source: ALPHA })).json();
    // a copy changed since the operator looked is a 412, and nothing is recorded
    const stale = await post('ann', `/proposals/${p.id}/save`, { source: ALPHA.replace('one worker then a gate', 'theirs, edited') }, { 'if-match': '"0000"' });
    expect(stale.statusCode).toBe(412);
    expect(JSON.parse((await fx.read('proposals', `${p.id}.json`))!)).toMatchObject({ status: 'pending', replaced: null });
    const saved = await post('ann', `/proposals/${p.id}/save`, { source: ALPHA.replace('one worker then a gate', 'theirs, edited') }, { 'if-match': etag });
    expect(saved.statusCode).toBe(200);
    expect(saved.json()).toMatchObject({ status: 'saved', edited: true, replaced: { etag, state: 'edited' } });
    expect(JSON.parse((await fx.read('proposals', `${p.id}.json`))!).replaced).toEqual({ etag, state: 'edited' });
    expect((await get('vera', '/proposals?status=decided')).json().proposals[0]).toMatchObject({ id: p.id, replaced: { etag, state: 'edited' } });
    await expect.poll(() => body('templates/alpha.yaml'), { timeout: 5000 }).toBe(`save alpha from proposal ${p.id}, with the operator's edits\n\nProposed-by: carl\nWho: ann`);
    execFileSync('git', ['-C', fx.root!, 'fsck', '--strict'], { stdio: 'pipe' });
  });
});
