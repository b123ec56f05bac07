/**
 * The launch draft routes over a real library with the shipped harness:
 * every route, status and transition, the refresh on a changed template,
 * what is kept on disk and in history. The waits are
 * http-launches-wait.test.ts; the root, library and app of both,
 * launches-fixture.ts.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Value } from '@sinclair/typebox/value';
import { describe, expect, test } from 'vitest';
import { unitOf } from '../src/library/layout.js';
import { LAUNCH_ID, LaunchAnswerSchema } from '../src/schema/launches.js';
import { ProblemSchema } from '../src/template/problems.js';
import {
  API,
  app,
  approve,
  close,
  dismiss,
  draft,
  drafted,
  etagOf,
  events,
  files,
  GREET_2,
  GREET_INVALID,
  GREET_NEEDS_MORE,
  get,
  launchEvents,
  library,
  list,
  open,
  openWithoutRoot,
  put,
  readRecord,
  root,
  useLaunchesRoot,
  withdraw,
} from './launches-fixture.js';

useLaunchesRoot();

describe('POST /launches', () => {
  test('201 pending: the template version, the inputs as checked, one run, one record on disk, launch.drafted', async () => {
    const r = await draft({ template: 'greet', inputs: { who: 'Ada' }, from: 'conductor-7', note: 'for the demo' });
    expect(r.statusCode).toBe(201);
    const d = r.json();
    expect(d.id).toMatch(LAUNCH_ID);
    expect(d).toMatchObject({ status: 'pending', template: 'greet', etag: await etagOf('greet'), from: 'conductor-7', note: 'for the demo', decided_at: null, runs: null, changed: false });
    expect(d.inputs).toEqual({ who: 'Ada', mood: 'glad' });
    expect(d.preview.ok).toBe(true);
    expect(d.preview.runs).toHaveLength(1);
    // the optional input with no value keeps its hole
    expect(d.preview.runs[0].nodes[0]).toMatchObject({ prompt: 'Greet Ada, glad. {{inputs.aside}}', holes: ['aside'] });
    expect(await files()).toEqual([`${d.id}.json`]);
    expect(launchEvents()).toEqual(['launch.drafted pending']);
  });

  test('a ticket template drafts one run per ticket; batch, which runs together, one', async () => {
    const quick = (await draft({ template: 'quick-fix', inputs: { tickets: ['T-1', 'T-2', 'T-3'] } })).json();
    expect(quick.preview.runs.map((r: { inputs: unknown }) => r.inputs)).toEqual([{ tickets: ['T-1'] }, { tickets: ['T-2'] }, { tickets: ['T-3'] }]);
    const batch = (await draft({ template: 'batch', inputs: { tickets: ['T-1', 'T-2'] } })).json();
    expect(batch.preview.runs).toHaveLength(1);
  });

  test.each<[string, Record<string, unknown>, string]>([
    ['input.missing', {}, '/inputs/who'],
    ['input.unknown', { who: 'Ada', colour: 'red' }, '/inputs/colour'],
    ['input.type', { who: 7 }, '/inputs/who'],
    ['input.one_of', { who: 'Ada', mood: 'cross' }, '/inputs/mood'],
    ['input.introduces_machinery', { who: 'Ada {{run.secret}}' }, '/inputs/who'],
    ['input.introduces_machinery', { who: 'Ada', aside: ':::warning' }, '/inputs/aside'],
  ])('422 invalid_launch with %s, nothing kept', async (code, inputs, path) => {
    const r = await draft({ template: 'greet', inputs });
    expect(r.statusCode).toBe(422);
    expect(r.json().code).toBe('invalid_launch');
    expect(r.json().problems.map((p: { code: string; path: string }) => `${p.code} ${p.path}`)).toContain(`${code} ${path}`);
    expect(await files()).toEqual([]);
    expect(launchEvents()).toEqual([]);
  });

  test('inputs over 64 KiB as UTF-8 JSON are 422 invalid_launch, limit.size at /inputs, nothing kept; 64 KiB is kept', async () => {
    // `é` is two bytes in UTF-8: the cap counts bytes, not characters
    const room = 64 * 1024 - Buffer.byteLength(JSON.stringify({ who: 'Ada', aside: '' }), 'utf8');
    const over = await draft({ template: 'greet', inputs: { who: 'Ada', aside: 'é'.repeat(room / 2 + 1) } });
    expect(over.statusCode).toBe(422);
    expect(over.json().code).toBe('invalid_launch');
    expect(over.json().problems.map((p: { code: string; path: string }) => `${p.code} ${p.path}`)).toEqual(['limit.size /inputs']);
    expect(await files()).toEqual([]);
    expect(launchEvents()).toEqual([]);
    expect((await draft({ template: 'greet', inputs: { who: 'Ada', aside: 'é'.repeat(room / 2) } })).statusCode).toBe(201);
  });

  test('an unknown template is 404; an invalid one 409 template_invalid_for_launch; a bad body 400', async () => {
    expect((await draft({ template: 'no-such', inputs: {} })).json()).toMatchObject({ status: 404, code: 'not_found' });
    await writeFile(join(root, 'templates', 'greet.yaml'), GREET_INVALID);
    const invalid = await draft({ template: 'greet', inputs: { who: 'Ada' } });
    expect(invalid.statusCode).toBe(409);
    expect(invalid.json().code).toBe('template_invalid_for_launch');
    expect((await draft({ template: 'greet', inputs: [] })).statusCode).toBe(400);
    expect((await draft({ template: 'greet', extra: 1 })).statusCode).toBe(400);
    expect((await draft({ template: 'Bad Name' })).statusCode).toBe(400);
    expect(await files()).toEqual([]);
  });

  test('past the pending cap: 409 too_many_launches; a decision makes room', async () => {
    await close();
    await open({}, { launches: { maxPending: 2 } });
    const a = await drafted();
    await drafted();
    const over = await draft({ template: 'greet', inputs: { who: 'Ada' } });
    expect(over.statusCode).toBe(409);
    expect(over.json().code).toBe('too_many_launches');
    expect((await withdraw(a)).statusCode).toBe(200);
    expect((await draft({ template: 'greet', inputs: { who: 'Ada' } })).statusCode).toBe(201);
  });
});

describe('GET /launches and /launches/:id', () => {
  test('the list filters by status, newest first, and counts the pending', async () => {
    const a = await drafted();
    const b = await drafted({ who: 'Bo' });
    await dismiss(a, { note: 'not now' });
    expect((await list()).json()).toMatchObject({ pending: 1, kept_decided: { count: 1, limit: 1000 }, launches: [{ id: b, status: 'pending' }] });
    expect((await list('decided')).json().launches.map((l: { id: string }) => l.id)).toEqual([a]);
    expect((await list('all')).json().launches.map((l: { id: string }) => l.id)).toEqual([b, a]);
    expect((await list('nope')).statusCode).toBe(400);
  });

  test('one draft with its preview; unknown 404, malformed 400', async () => {
    const id = await drafted();
    const d = (await get(id)).json();
    expect(d).toMatchObject({ id, status: 'pending', inputs: { who: 'Ada', mood: 'glad' }, current_etag: d.etag, changed: false });
    expect((await get('000000000-00000000000000000000')).json()).toMatchObject({ status: 404, code: 'not_found' });
    expect((await get('not-an-id')).statusCode).toBe(400);
  });

  test('a draft says when its template changed since, and keeps its own version until approved', async () => {
    const id = await drafted();
    const before = (await get(id)).json();
    expect((await put('greet', GREET_2, { 'if-match': before.etag })).statusCode).toBe(200);
    const after = (await get(id)).json();
    expect(after).toMatchObject({ etag: before.etag, current_etag: await etagOf('greet'), changed: true });
    expect(after.preview).toEqual(before.preview);
  });

  test('drafts outlive a restart', async () => {
    const id = await drafted();
    await close();
    await open();
    expect((await get(id)).json()).toMatchObject({ id, status: 'pending' });
  });
});

describe('decisions', () => {
  test('approve: 200 approved with the runs and decided_at, launch.decided; a second decision is 409 already_decided', async () => {
    const id = await drafted({ who: 'Ada', aside: 'Be brief.' });
    const r = await approve(id);
    expect(r.statusCode).toBe(200);
    const d = r.json();
    expect(d).toMatchObject({ status: 'approved', changed: false });
    expect(Number.isNaN(Date.parse(d.decided_at))).toBe(false);
    expect(d.runs).toEqual(d.preview.runs);
    expect(d.runs[0].nodes[0].prompt).toBe('Greet Ada, glad. Be brief.');
    expect(launchEvents()).toEqual(['launch.drafted pending', 'launch.decided approved']);
    for (const again of [await approve(id), await dismiss(id), await withdraw(id)]) {
      expect(again.statusCode).toBe(409);
      expect(again.json().code).toBe('already_decided');
    }
    expect(JSON.parse(await readRecord(id))).toMatchObject({ status: 'approved' });
  });

  test("approve with If-Match: the draft's etag passes, a stale one is 412 and the draft stays pending", async () => {
    const id = await drafted();
    const stale = await approve(id, { 'if-match': '"0000"' });
    expect(stale.statusCode).toBe(412);
    expect(stale.json()).toMatchObject({ code: 'precondition_failed', draft: { id, status: 'pending' } });
    expect((await get(id)).json().status).toBe('pending');
    const ok = await approve(id, { 'if-match': (await get(id)).json().etag });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().status).toBe('approved');
  });

  test('the template changed: without If-Match 409 template_changed and the draft refreshed; approving the new etag succeeds', async () => {
    const id = await drafted();
    const old = (await get(id)).json().etag;
    expect((await put('greet', GREET_2, { 'if-match': old })).statusCode).toBe(200);
    const now = await etagOf('greet');
    const r = await approve(id);
    expect(r.statusCode).toBe(409);
    expect(r.json()).toMatchObject({ code: 'template_changed', draft: { id, status: 'pending', etag: now, changed: false, preview: { ok: true } } });
    expect((await get(id)).json()).toMatchObject({ status: 'pending', etag: now, changed: false });
    const ok = await approve(id, { 'if-match': now });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ status: 'approved', etag: now });
  });

  test('the template changed: the old etag as If-Match is 412, the draft refreshed all the same', async () => {
    const id = await drafted();
    const old = (await get(id)).json().etag;
    await put('greet', GREET_2, { 'if-match': old });
    const now = await etagOf('greet');
    const r = await approve(id, { 'if-match': old });
    expect(r.statusCode).toBe(412);
    expect(r.json()).toMatchObject({ code: 'precondition_failed', draft: { status: 'pending', etag: now } });
    expect((await approve(id, { 'if-match': now })).statusCode).toBe(200);
  });

  test('refreshed onto a version that is not valid: pending with preview.ok false, and approve is 409 template_invalid_for_launch', async () => {
    const id = await drafted();
    await writeFile(join(root, 'templates', 'greet.yaml'), GREET_INVALID);
    const r = await approve(id);
    expect(r.statusCode).toBe(409);
    expect(r.json()).toMatchObject({ code: 'template_changed', draft: { status: 'pending', preview: { ok: false, runs: [] } } });
    const again = await approve(id, { 'if-match': await etagOf('greet') });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('template_invalid_for_launch');
    expect((await get(id)).json()).toMatchObject({ status: 'pending', preview: { ok: false } });
  });

  test('refreshed onto a version the inputs no longer check against: approve is 422 invalid_launch, still pending', async () => {
    const id = await drafted();
    await put('greet', GREET_NEEDS_MORE, { 'if-match': await etagOf('greet') });
    expect((await approve(id)).json().code).toBe('template_changed');
    const r = await approve(id, { 'if-match': await etagOf('greet') });
    expect(r.statusCode).toBe(422);
    expect(r.json()).toMatchObject({ code: 'invalid_launch', problems: [{ code: 'input.missing', path: '/inputs/place' }] });
    expect((await get(id)).json().status).toBe('pending');
  });

  test('the template deleted: approve is 409 template_changed, the draft unchanged', async () => {
    const id = await drafted();
    const etag = await etagOf('greet');
    expect((await app.inject({ method: 'DELETE', url: `${API}/templates/greet`, headers: { 'if-match': etag } })).statusCode).toBe(204);
    const r = await approve(id);
    expect(r.statusCode).toBe(409);
    expect(r.json()).toMatchObject({ code: 'template_changed', draft: { status: 'pending', etag, current_etag: null } });
  });

  test('dismiss with a note keeps it for the conductor; without a body too', async () => {
    const a = await drafted();
    const r = await dismiss(a, { note: 'not this week' });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ status: 'dismissed', decision_note: 'not this week', runs: null });
    const b = await drafted();
    expect((await dismiss(b)).json()).toMatchObject({ status: 'dismissed', decision_note: null });
    expect((await dismiss(await drafted(), { note: 'x'.repeat(2001) })).statusCode).toBe(400);
  });

  test('withdraw: withdrawn, launch.decided', async () => {
    const id = await drafted();
    const r = await withdraw(id);
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ status: 'withdrawn', runs: null });
    expect(launchEvents()).toEqual(['launch.drafted pending', 'launch.decided withdrawn']);
  });

  test('every answer of a draft is JSON of exactly LaunchAnswerSchema, whatever its state', async () => {
    const exact = (r: Awaited<ReturnType<typeof get>>) => {
      expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
      const errors = [...Value.Errors(LaunchAnswerSchema, [ProblemSchema], r.json())].map((e) => `${e.path}: ${e.message}`);
      expect(errors).toEqual([]);
    };
    const ticket = await draft({ template: 'quick-fix', inputs: { tickets: ['DESK-1', 'DESK-2'] } });
    exact(ticket);
    exact(await approve(ticket.json().id));
    const a = await drafted({ who: 'Ada', aside: 'Be brief.' });
    exact(await get(a));
    const waiting = get(a, '5');
    exact(await dismiss(a, { note: 'not now' }));
    exact(await waiting);
    exact(await withdraw(await drafted()));
    // refreshed onto a version that is not valid: the preview carries the template's problems, lines and all
    const b = await drafted();
    await writeFile(join(root, 'templates', 'greet.yaml'), GREET_INVALID);
    expect((await approve(b)).statusCode).toBe(409);
    const refreshed = await get(b);
    expect(refreshed.json().preview.problems.length).toBeGreaterThan(0);
    exact(refreshed);
  });

  test('an unknown draft is 404 for every decision', async () => {
    const id = '000000000-00000000000000000000';
    for (const r of [await approve(id), await dismiss(id), await withdraw(id)]) expect(r.json()).toMatchObject({ status: 404, code: 'not_found' });
  });

  test('decided drafts past DESK_DECIDED_KEEP leave launches/, the newest stay; pending ones always stay', async () => {
    await close();
    await open({}, { launches: { decidedKeep: 2 } });
    const ids = [await drafted(), await drafted(), await drafted()];
    const pending = await drafted();
    for (const id of ids) await withdraw(id);
    expect((await files()).sort()).toEqual([ids[1], ids[2], pending].map((id) => `${id}.json`).sort());
    expect((await get(ids[0]!)).statusCode).toBe(404);
  });
});

describe('approve with a note', () => {
  test('the note is kept as decision_note, told in launch.decided; none is null; a bad body is 400 and decides nothing', async () => {
    const id = await drafted();
    const bad = await app.inject({ method: 'POST', url: `${API}/launches/${id}/approve`, payload: { note: 7 } });
    expect(bad.statusCode).toBe(400);
    expect((await get(id)).json().status).toBe('pending');
    const r = await app.inject({ method: 'POST', url: `${API}/launches/${id}/approve`, payload: { note: 'go ahead, mind the gate' } });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ status: 'approved', decision_note: 'go ahead, mind the gate' });
    expect(JSON.parse(await readFile(join(root, 'launches', `${id}.json`), 'utf8')).decision_note).toBe('go ahead, mind the gate');
    expect(events.find((e) => e.type === 'launch.decided')?.data).toMatchObject({ id, status: 'approved', note: 'go ahead, mind the gate' });
    const other = await drafted();
    expect((await approve(other)).json()).toMatchObject({ status: 'approved', decision_note: null });
  });
});

describe('on disk and in history', () => {
  test('each record is its own commit: drafted, refreshed, decided; the folder is the library\'s', async () => {
    const id = await drafted();
    await put('greet', GREET_2, { 'if-match': await etagOf('greet') });
    await approve(id);
    await approve(id, { 'if-match': await etagOf('greet') });
    await library.history.settle();
    const log = await library.history.log(`launches/${id}.json`, { limit: 10 });
    expect(log.map((v) => v.message)).toEqual([`launch ${id} approved`, `launch ${id} of greet refreshed`, `launch ${id} of greet`]);
    expect(unitOf(`launches/${id}.json`)).toEqual({ kind: 'plain', path: `launches/${id}.json` });
    for (const odd of ['launches/notes.json', `launches/x/${id}.json`, `launches/${id}.yaml`]) expect(unitOf(odd), odd).toBeNull();
  });

  test('who decided is kept on the record (the client address, on a desk with no users); one kept before the field reads null', async () => {
    const id = await drafted();
    expect((await get(id)).json().decided_by).toBeNull();
    expect((await withdraw(id)).json()).toMatchObject({ status: 'withdrawn', decided_by: '127.0.0.1' });
    expect(events.find((e) => e.type === 'launch.decided')?.data).toMatchObject({ id, who: '127.0.0.1' });
    const { decided_by, ...older } = JSON.parse(await readRecord(id));
    expect(decided_by).toBe('127.0.0.1');
    await close();
    await writeFile(join(root, 'launches', `${id}.json`), `${JSON.stringify(older)}\n`);
    await open();
    expect((await get(id)).json()).toMatchObject({ id, status: 'withdrawn', decided_by: null });
    expect((await list('decided')).json().launches).toEqual([expect.objectContaining({ id, decided_by: null })]);
  });

  test('an odd file in launches/ is skipped, never answered', async () => {
    await close();
    await mkdir(join(root, 'launches'), { recursive: true });
    await writeFile(join(root, 'launches', '000000000-00000000000000000000.json'), '{"torn": ');
    await writeFile(join(root, 'launches', 'notes.txt'), 'hand made');
    await open();
    expect((await list('all')).json()).toMatchObject({ pending: 0, launches: [] });
    expect((await get('000000000-00000000000000000000')).statusCode).toBe(404);
  });
});

describe('without a library root', () => {
  test('drafting is 409 no_library_root; the list is empty', async () => {
    await close();
    await openWithoutRoot();
    const r = await draft({ template: 'quick-fix', inputs: { tickets: ['T-1'] } });
    expect(r.statusCode).toBe(409);
    expect(r.json().code).toBe('no_library_root');
    expect((await list()).json()).toMatchObject({ pending: 0, launches: [] });
  });
});
