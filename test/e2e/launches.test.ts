/**
 * The Launches view in a real browser: a conductor drafts a launch over
 * plain HTTP and waits on it (`?wait=`); the operator opens Launches, sees
 * one run per ticket with its prompts, and approves it; the waiting request
 * answers with the decision.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserMissing, buildWeb, callApi, launch, type Served, serve } from './harness.js';

const missing = browserMissing();
if (missing) console.warn(missing);

describe.skipIf(missing !== null)('launches (e2e)', () => {
  let served: Served;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    buildWeb();
    browser = await launch();
    served = await serve();
    page = await browser.newPage();
    page.setDefaultTimeout(20_000);
  });
  afterAll(async () => {
    await page?.close();
    await browser?.close();
    await served?.close();
  });

  it('a draft approved from the page answers the conductor waiting on it', async () => {
    const drafted = await callApi(served.base, 'POST', '/launches', { template: 'quick-fix', inputs: { tickets: ['DESK-1', 'DESK-2'] }, from: 'conductor' });
    expect(drafted.status).toBe(201);
    const { id } = (await drafted.json()) as { id: string };
    // the conductor waits with plain HTTP
    const waiting = callApi(served.base, 'GET', `/launches/${id}?wait=55`).then(async (r) => ({ status: r.status, body: (await r.json()) as { status: string; runs: unknown[] | null } }));

    await page.goto(`${served.base}/#/launches`);
    const draft = page.locator(`article.launch-draft[data-id="${id}"]`);
    await expect.poll(() => draft.locator('.launch-run').count()).toBe(2);
    expect(await draft.locator('.launch-run').nth(1).locator('[data-node="work"] pre.prompt').textContent()).toMatch(/^Fix DESK-2 with/);
    await draft.getByRole('button', { name: 'Approve' }).click();

    const answer = await waiting;
    expect(answer.status).toBe(200);
    expect(answer.body.status).toBe('approved');
    expect(answer.body.runs).toHaveLength(2);
    // the view is drawn again: the draft is among the decided
    await expect.poll(() => page.locator(`li.row[data-id="${id}"][data-status="approved"]`).count()).toBe(1);
  });

  it('a dismissal with a note reaches the waiting conductor too', async () => {
    const drafted = await callApi(served.base, 'POST', '/launches', { template: 'research', inputs: { question: 'why?' } });
    const { id } = (await drafted.json()) as { id: string };
    const waiting = callApi(served.base, 'GET', `/launches/${id}?wait=55`).then(async (r) => (await r.json()) as { status: string; decision_note: string | null });
    await page.goto(`${served.base}/#/launches`);
    await page.reload();
    const draft = page.locator(`article.launch-draft[data-id="${id}"]`);
    // grok's researcher may not run: it is marked
    await expect.poll(() => draft.locator('[data-node="grok"][data-may-skip="true"]').count()).toBe(1);
    await draft.getByRole('button', { name: 'Dismiss' }).click();
    await draft.getByLabel('Note for the conductor').fill('not now');
    await draft.getByRole('button', { name: 'Yes, dismiss' }).click();
    expect(await waiting).toMatchObject({ status: 'dismissed', decision_note: 'not now' });
  });

  it('an approve that meets a changed template shows the refreshed draft at once, and the next click approves it', async () => {
    const drafted = await callApi(served.base, 'POST', '/launches', { template: 'quick-fix', inputs: { tickets: ['DESK-7'] } });
    const { id } = (await drafted.json()) as { id: string };
    await page.goto(`${served.base}/#/launches`);
    await page.reload();
    const draft = page.locator(`article.launch-draft[data-id="${id}"]`);
    await expect.poll(() => draft.locator('[data-node="work"] pre.prompt').textContent()).toMatch(/^Fix DESK-7 with/);
    // the header counts the drafts waiting, as it counts proposals
    await expect.poll(() => page.getByRole('link', { name: 'Launches, 1 pending' }).count()).toBe(1);
    // the template changes after the page drew the draft
    const read = await callApi(served.base, 'GET', '/templates/quick-fix');
    const { source } = (await read.json()) as { source: string };
    const saved = await callApi(served.base, 'PUT', '/templates/quick-fix', { source: source.replace('Fix {{inputs.tickets}}', 'Mend {{inputs.tickets}}') }, { 'if-match': read.headers.get('etag')! });
    expect(saved.status).toBe(200);
    let approves = 0;
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().endsWith(`/launches/${id}/approve`)) approves++;
    });
    await draft.getByRole('button', { name: 'Approve' }).click();
    // refused once (412): the refreshed draft replaces the old one at once, saying what changed
    const notice = draft.locator('.draft-refreshed');
    await notice.waitFor();
    expect(await notice.textContent()).toContain('changed: work');
    expect(await draft.locator('[data-node="work"] pre.prompt').textContent()).toMatch(/^Mend DESK-7 with/);
    await draft.getByLabel('Approve with a note').fill('mended, go');
    await draft.getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => page.locator(`li.row[data-id="${id}"][data-status="approved"]`).count()).toBe(1);
    expect(approves).toBe(2);
    await expect.poll(() => page.locator('#launches-count').isHidden()).toBe(true);
    const after = (await (await callApi(served.base, 'GET', `/launches/${id}`)).json()) as { status: string; decision_note: string | null; runs: { nodes: { id: string; prompt: string | null }[] }[] };
    expect(after.status).toBe('approved');
    // the approve's note is kept as the decision's, for the conductor
    expect(after.decision_note).toBe('mended, go');
    expect(after.runs[0]!.nodes.find((n) => n.id === 'work')?.prompt).toMatch(/^Mend DESK-7/);
  });
});
