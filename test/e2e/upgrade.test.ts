/**
 * The upgrade assistant on the page, in a real browser: a root saved by this
 * build, a new release shipped (test/upgrade-fixture.ts: an unedited copy, a
 * clean edit, a conflicting one, one that merges invalid, one with no kept
 * base, an unedited and an edited role), the service started on it. The
 * library's banner counts them, the Upgrade view lists each outcome with the
 * shipped change alone and the result against the copy (a role's of its
 * role.md), "Upgrade all clean"
 * applies, and once the last copies are settled the banner goes.
 */
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { fixture } from '../http-fixture.js';
import { beforeRelease, UPSTREAM_NOTE } from '../upgrade-fixture.js';
import { NARROW, tooWide } from './narrow.js';
import { browserMissing, callApi, serve, useBrowser } from './harness.js';

const missing = browserMissing();
if (missing) console.warn(missing);

async function violations(page: Page): Promise<Record<string, string[]>> {
  const result = await new AxeBuilder({ page }).setLegacyMode(true).analyze();
  return Object.fromEntries(result.violations.map((v) => [`${v.id} (${v.impact})`, v.nodes.slice(0, 5).map((n) => n.target.join(' '))]));
}

describe.skipIf(missing !== null)('upgrade assistant (e2e)', () => {
  const t = useBrowser();

  it('the banner counts the copies behind, the view shows each outcome and its diffs, and Upgrade all clean applies', async () => {
    const fx = await fixture();
    t.defer({ close: () => fx.cleanup() });
    await beforeRelease(fx);
    const served = t.defer(await serve({ root: fx.root!, harnessDir: fx.harness }));
    const page = await t.page();

    await page.goto(`${served.base}/#/`);
    const banner = page.locator('.upgrade-banner');
    await banner.locator('a[href="#/upgrade"]').waitFor();
    expect(await banner.getAttribute('data-behind')).toBe('7');
    // two clean (a template and a role), two unedited (likewise), three that need a person
    expect(await banner.locator('.upgrade-sentence').textContent()).toMatch(/^7 copies .*: 2 upgrade cleanly, 2 are unedited, 3 need you\.$/);

    await banner.getByRole('link', { name: 'Review the upgrade' }).click();
    const view = page.locator('.upgrade');
    await view.waitFor();
    const outcomes = async () =>
      view.locator('article.upgrade-copy').evaluateAll((els) => els.map((e) => `${e.getAttribute('data-kind') ?? 'template'}:${e.getAttribute('data-name')}:${e.getAttribute('data-outcome')}`));
    expect(await outcomes()).toEqual([
      'template:up-clean:clean',
      'template:up-conflict:conflicts',
      'template:up-invalid:invalid',
      'template:up-nobase:no_kept_base',
      'template:up-reset:reset',
      'role:reviewer:reset',
      'role:worker:clean',
    ]);
    // a copy that needs a person leads to its template, whose rebase preview settles it
    expect(await view.locator('article[data-name="up-conflict"] a.button').getAttribute('href')).toBe('#/templates/up-conflict/rebase');
    expect(await view.locator('article[data-name="up-invalid"] .problem').evaluateAll((els) => els.map((e) => e.getAttribute('data-code')))).toContain('yaml.duplicate_key');

    // the clean edit: upstream's change alone adds the note; the result against the copy adds the same note and keeps the copy's purpose
    const clean = view.locator('article[data-name="up-clean"]');
    await clean.locator('.upgrade-upstream summary').click();
    await clean.locator('.upgrade-upstream pre.upgrade-diff').waitFor();
    const note = UPSTREAM_NOTE.replace(/\n$/, '');
    expect(await clean.locator('.upgrade-upstream .l.add').allTextContents()).toEqual([`+${note}`]);
    expect(await clean.locator('.upgrade-upstream .l.del').count()).toBe(0);
    await clean.locator('.upgrade-result summary').click();
    await clean.locator('.upgrade-result pre.upgrade-diff').waitFor();
    expect(await clean.locator('.upgrade-result .l.add').allTextContents()).toEqual([`+${note}`]);
    expect(await clean.locator('.upgrade-result .l.del').count()).toBe(0);
    // the conflicting edit: upstream changed the purpose, which the copy changed too
    const conflict = view.locator('article[data-name="up-conflict"]');
    await conflict.locator('.upgrade-upstream summary').click();
    // drawn once its fetch answers, as for the clean copy above
    await conflict.locator('.upgrade-upstream pre.upgrade-diff').waitFor();
    expect(await conflict.locator('.upgrade-upstream .l.add').allTextContents()).toEqual(['+  purpose: the upstream purpose']);
    // no kept base: the change alone cannot be shown, and nothing is merged
    const nobase = view.locator('article[data-name="up-nobase"]');
    await nobase.locator('.upgrade-upstream summary').click();
    await nobase.locator('.upgrade-upstream .note').waitFor();
    expect(await nobase.locator('.upgrade-result').count()).toBe(0);
    // a role likewise, of its role.md: the edited worker's upstream change alone, and the merge (its own heading kept, no line of it removed)
    const worker = view.locator('article[data-kind="role"][data-name="worker"]');
    await worker.locator('.upgrade-upstream summary').click();
    await worker.locator('.upgrade-upstream pre.upgrade-diff').waitFor();
    expect(await worker.locator('.upgrade-upstream .l.del').allTextContents()).toEqual(['-Asks when unsure.']);
    expect(await worker.locator('.upgrade-upstream .l.add').allTextContents()).toEqual(['+Asks when unsure, early.']);
    await worker.locator('.upgrade-result summary').click();
    await worker.locator('.upgrade-result pre.upgrade-diff').waitFor();
    expect(await worker.locator('.upgrade-result .l.del').allTextContents()).toEqual(['-Asks when unsure.']);
    expect(await worker.locator('.upgrade-result .l.add').allTextContents()).toEqual(['+Asks when unsure, early.']);
    // the unedited reviewer: its copy is the older built-in role.md, so both diffs are the change to today's
    const reviewer = view.locator('article[data-kind="role"][data-name="reviewer"]');
    await reviewer.locator('.upgrade-result summary').click();
    await reviewer.locator('.upgrade-result pre.upgrade-diff').waitFor();
    expect(await reviewer.locator('.upgrade-result .l.add').allTextContents()).toEqual(['+Reads the work twice.']);
    expect(await reviewer.locator('.upgrade-upstream .l.add').allTextContents()).toEqual(['+Reads the work twice.']);
    expect(await violations(page)).toEqual({});

    await view.getByRole('button', { name: 'Upgrade all clean' }).click();
    await expect.poll(() => page.locator('.upgrade').getAttribute('data-behind')).toBe('3');
    expect(await outcomes()).toEqual(['template:up-conflict:conflicts', 'template:up-invalid:invalid', 'template:up-nobase:no_kept_base']);
    const copy = (await (await callApi(served.base, 'GET', '/templates/up-clean')).json()) as { state: string; source: string };
    expect(copy.state).toBe('edited');
    expect(copy.source).toContain(UPSTREAM_NOTE);
    expect(copy.source).toContain('purpose: my own purpose');

    // the conflicting copy's link on a phone-sized window: its rebase preview, drawn at 390 px, no wider than the window
    await page.setViewportSize(NARROW);
    await view.locator('article[data-name="up-conflict"] a.button').click();
    const preview = page.getByRole('region', { name: 'Rebase preview' });
    await expect.poll(() => preview.getAttribute('data-status')).toBe('choose');
    expect(await tooWide(page), 'the rebase preview at 390 px').toBe('');
    await page.setViewportSize({ width: 1280, height: 720 });

    // the library: the banner counts what is left, and goes once those are reset too (live, with no reload)
    await page.goto(`${served.base}/#/`);
    await expect.poll(() => banner.getAttribute('data-behind')).toBe('3');
    for (const name of ['up-conflict', 'up-invalid', 'up-nobase']) {
      const etag = (await callApi(served.base, 'GET', `/templates/${name}`)).headers.get('etag')!;
      expect((await callApi(served.base, 'POST', '/settings/template-reset', { name }, { 'if-match': etag })).status, name).toBe(200);
    }
    await expect.poll(() => banner.isHidden()).toBe(true);
    expect(await banner.getAttribute('data-behind')).toBe('0');
  });

  it('with nothing behind, the library has no banner and the view says so', async () => {
    const served = t.defer(await serve());
    const page = await t.page();
    await page.goto(`${served.base}/#/`);
    await page.locator('.library .rows li').first().waitFor();
    // the plan is read after the list is drawn: the banner says how many once it has it
    await expect.poll(() => page.locator('.upgrade-banner').getAttribute('data-behind')).toBe('0');
    expect(await page.locator('.upgrade-banner').isHidden()).toBe(true);
    await page.goto(`${served.base}/#/upgrade`);
    await page.locator('.upgrade').waitFor();
    expect(await page.locator('.upgrade').getAttribute('data-behind')).toBe('0');
    expect(await page.getByRole('button', { name: 'Upgrade all clean' }).count()).toBe(0);
  });
});
