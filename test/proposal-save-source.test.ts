/**
 * POST /proposals/:id/save with `source`: the operator's edit of the
 * proposal is saved instead of its text, validated like any save (an
 * invalid edit is 422 and the proposal stays pending), and the decision
 * says it was edited (`edited`, and its note), so the conductor is told.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { EDITED_NOTE } from '../src/library/records/proposal.js';
import { ALPHA, API, openApp } from './http-fixture.js';

const ctx = openApp();
const GAMMA = ALPHA.replaceAll('alpha', 'gamma');
const inject = (method: 'GET' | 'POST', url: string, payload?: object, headers: Record<string, string> = {}) =>
  ctx.app.inject({ method, url: `${API}${url}`, headers, ...(payload ? { payload } : {}) });

async function proposal(source: string): Promise<string> {
  const r = await inject('POST', '/proposals', { name: 'gamma', purpose: 'a worker and a gate, proposed', source });
  expect(r.statusCode).toBe(201);
  return (r.json() as { id: string }).id;
}

describe('saving a proposal as the operator edited it', () => {
  test('the edited text is what lands, with If-None-Match; the decision is noted as edited', async () => {
    const id = await proposal(GAMMA);
    const edited = GAMMA.replace('one worker then a gate', 'one worker then a gate, checked by the operator');
    const r = await inject('POST', `/proposals/${id}/save`, { source: edited }, { 'if-none-match': '*' });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ status: 'saved', saved_as: 'gamma', note: EDITED_NOTE, edited: true });
    expect((await inject('GET', '/templates/gamma')).json()).toMatchObject({ source: edited });
    // a field of the decision: in its record on disk, the list, and read back after a restart
    expect(JSON.parse(await readFile(join(ctx.fx.root!, 'proposals', `${id}.json`), 'utf8'))).toMatchObject({ status: 'saved', edited: true });
    await ctx.reopen();
    expect((await inject('GET', `/proposals/${id}`)).json()).toMatchObject({ status: 'saved', edited: true });
    expect((await inject('GET', '/proposals?status=decided')).json().proposals).toEqual([expect.objectContaining({ id, edited: true })]);
  });

  test('an edit that does not validate is 422 with its problems; the proposal is still pending', async () => {
    const id = await proposal(GAMMA);
    const r = await inject('POST', `/proposals/${id}/save`, { source: GAMMA.replace('profile: read_only', 'profile: everything') }, { 'if-none-match': '*' });
    expect(r.statusCode).toBe(422);
    expect((r.json() as { problems: { code: string }[] }).problems.map((p) => p.code)).toContain('model.profile_unknown');
    expect((await inject('GET', `/proposals/${id}`)).json()).toMatchObject({ status: 'pending' });
  });

  test('saved unedited: no note; an unknown key is 400', async () => {
    const id = await proposal(GAMMA);
    expect((await inject('POST', `/proposals/${id}/save`, { sources: GAMMA })).statusCode).toBe(400);
    const r = await inject('POST', `/proposals/${id}/save`, { source: GAMMA }, { 'if-none-match': '*' });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ status: 'saved', note: null, edited: false });
  });

  test('pending, dismissed, and saved with no source: not edited', async () => {
    const a = await proposal(GAMMA);
    expect((await inject('GET', `/proposals/${a}`)).json()).toMatchObject({ status: 'pending', edited: false });
    expect((await inject('POST', `/proposals/${a}/dismiss`, { note: 'no' })).json()).toMatchObject({ status: 'dismissed', edited: false });
    const b = await proposal(GAMMA);
    expect((await inject('POST', `/proposals/${b}/save`, {}, { 'if-none-match': '*' })).json()).toMatchObject({ status: 'saved', edited: false });
  });
});
