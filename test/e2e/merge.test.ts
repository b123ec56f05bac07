/**
 * The diff tab as a merge view, a rebase whose conflicts are settled by
 * choice, and the header diff as lists (src/web/merge-*.ts). Shipped files are
 * read once at start, so a rebase test starts from a copy of an older
 * shipped version (harness.ts shippedMovedUnder).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { harnessDir } from '../../src/paths.js';
import { NARROW, tooWide } from './narrow.js';
import { browserMissing, callApi, pageListeners, type Served, serve, shippedMovedUnder, useBrowser } from './harness.js';

const missing = browserMissing();

/** axe's rule ids flagged inside `selector` (the part of the page these views draw), with a few targets each */
async function violations(page: Page, selector: string): Promise<Record<string, string[]>> {
  const result = await new AxeBuilder({ page }).setLegacyMode(true).include(selector).analyze();
  return Object.fromEntries(result.violations.map((v) => [v.id, v.nodes.slice(0, 3).map((n) => n.target.join(' '))]));
}

const SHIPPED_PURPOSE = /^ {2}purpose: .*$/m;
const MY_PURPOSE = '  purpose: My own short purpose for quick fixes';
const NEW_PURPOSE = '  purpose: The shipped purpose, reworded in a later release';
const OLD_GATE = 'prompt: Approve to land this fix, or reject it with a note for the worker.';
const MY_GATE = 'prompt: Approve it, or say why not.';
const NEW_GATE = 'prompt: Approve to land this fix, or reject it with a note saying what to change.';

describe.skipIf(missing !== null)('settings page: merge views and rebase choices (e2e)', () => {
  const t = useBrowser();
  let page: Page;
  let served: Served;

  async function put(name: string, source: string): Promise<void> {
    expect((await callApi(served.base, 'PUT', `/templates/${name}`, { source })).status).toBe(200);
  }

  async function open(hash: string): Promise<void> {
    page = await t.page({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${served.base}/${hash}`);
  }

  it('shows the diff against shipped as a side-by-side merge view, unified on a narrow screen', async () => {
    served = t.defer(await serve());
    const shipped = readFileSync(join(harnessDir, 'templates', 'quick-fix.yaml'), 'utf8');
    await put('quick-fix', shipped.replace(OLD_GATE, MY_GATE));
    await open('#/templates/quick-fix/diff');
    const view = page.locator('#panel-diff .merge-compare');
    await view.locator('.cm-mergeView').waitFor();
    expect(await view.getAttribute('data-mode')).toBe('side');
    // the changed line is marked on each side, and neither side can be typed into
    await view.locator('.cm-merge-a .cm-changedLine', { hasText: 'note for the worker' }).first().waitFor();
    await view.locator('.cm-merge-b .cm-changedLine', { hasText: 'say why not' }).first().waitFor();
    expect(await view.locator('.cm-content[aria-readonly="true"]').count()).toBe(2);
    // CodeMirror's own styles got past the page's CSP (the per-load style nonce): the two
    // sides stand next to each other, not one above the other as unstyled blocks do
    const a = await view.locator('.cm-merge-a').boundingBox();
    const b = await view.locator('.cm-merge-b').boundingBox();
    expect(a && b && b.x > a.x + a.width / 2 && Math.abs(b.y - a.y) < 5).toBe(true);
    // the graph diff is still shown
    expect(await page.locator('#panel-diff .graph-diff').count()).toBe(1);
    expect(await violations(page, '#panel-diff')).toEqual({});

    await page.setViewportSize({ width: 600, height: 900 });
    await expect.poll(() => view.getAttribute('data-mode')).toBe('unified');
    await view.locator('.cm-deletedChunk', { hasText: 'note for the worker' }).waitFor();
    expect(await view.locator('.cm-mergeView').count()).toBe(0);
    expect(await violations(page, '#panel-diff')).toEqual({});
    await page.setViewportSize({ width: 1280, height: 900 });
    await expect.poll(() => view.getAttribute('data-mode')).toBe('side');
  });

  it('settles a rebase conflict by choice: keep mine for one, take shipped for the other; saved bytes are the merge', async () => {
    const m = t.defer(
      await shippedMovedUnder(
        'quick-fix',
        (s) => s.replace(SHIPPED_PURPOSE, MY_PURPOSE).replace(OLD_GATE, MY_GATE),
        (s) => s.replace(SHIPPED_PURPOSE, NEW_PURPOSE).replace(OLD_GATE, NEW_GATE),
      ),
    );
    served = m;
    const { root, moved } = m;
    await open('#/templates/quick-fix');
    await page.getByRole('button', { name: 'Preview rebase' }).click();
    const preview = page.getByRole('region', { name: 'Rebase preview' });
    await preview.waitFor();
    expect(await preview.getAttribute('data-conflicts')).toBe('2');
    const use = preview.getByRole('button', { name: 'Use this' });
    await expect.poll(() => preview.getAttribute('data-status')).toBe('choose');
    expect(await use.isDisabled()).toBe(true);

    const first = preview.getByRole('group', { name: 'Conflict 1 of 2' });
    const second = preview.getByRole('group', { name: 'Conflict 2 of 2' });
    expect(await first.locator('.merge-side.mine pre').textContent()).toBe(`${MY_PURPOSE}\n`);
    expect(await first.locator('.merge-side.shipped pre').textContent()).toBe(`${NEW_PURPOSE}\n`);

    // edit both keeps both purpose lines: a duplicate key, so the result is checked and refused
    await first.getByRole('radio', { name: 'Edit both' }).check();
    await second.getByRole('radio', { name: 'Take shipped' }).check();
    await expect.poll(() => preview.getAttribute('data-status')).toBe('invalid');
    expect(await use.isDisabled()).toBe(true);
    expect(await first.getByRole('textbox', { name: 'Your lines for conflict 1' }).count()).toBe(1);
    expect(await violations(page, 'section.rebase')).toEqual({});
    // on a phone-sized window the preview, its two sides and the edit-both editor fit: nothing wider than the window
    await page.setViewportSize(NARROW);
    expect(await tooWide(page), 'the rebase preview at 390 px').toBe('');
    expect(await violations(page, 'section.rebase'), 'the rebase preview at 390 px').toEqual({});
    await page.setViewportSize({ width: 1280, height: 720 });

    await first.getByRole('radio', { name: 'Keep mine' }).check();
    await expect.poll(() => preview.getAttribute('data-status')).toBe('valid');
    expect(await use.isDisabled()).toBe(false);
    // settled, with the result drawn: still nothing wider than a phone's window
    await page.setViewportSize(NARROW);
    expect(await tooWide(page), 'the settled rebase preview at 390 px').toBe('');
    await page.setViewportSize({ width: 1280, height: 720 });
    await use.click();
    await expect.poll(() => preview.count()).toBe(0);

    // in the editor, unsaved: nothing on disk changed until Save
    const expected = moved.replace(NEW_PURPOSE, MY_PURPOSE);
    expect(readFileSync(join(root, 'templates', 'quick-fix.yaml'), 'utf8')).not.toBe(expected);
    const save = page.getByRole('button', { name: 'Save', exact: true });
    await expect.poll(() => save.isEnabled()).toBe(true);
    await save.click();
    await page.locator('.page-head h2 .badge[data-state="edited"]').waitFor();
    const onDisk = readFileSync(join(root, 'templates', 'quick-fix.yaml'), 'utf8');
    expect(onDisk).toBe(expected);
    expect(onDisk).not.toContain('<<<<<<<');
  });

  it('lists an added input in the header diff, not a JSON blob', async () => {
    served = t.defer(await serve());
    const shipped = readFileSync(join(harnessDir, 'templates', 'quick-fix.yaml'), 'utf8');
    const extra = '    - name: branch\n      required: false\n      type: string\n      description: the branch to fix on\n';
    await put('quick-fix', shipped.replace('  roles:\n', `${extra}  roles:\n`));
    await open('#/templates/quick-fix/diff');
    const inputs = page.locator('#panel-diff .graph-diff .gd-field[data-field="inputs"]');
    await inputs.waitFor();
    const added = inputs.locator('li[data-change="added"][data-key="branch"]');
    expect(await added.count()).toBe(1);
    expect(await added.textContent()).toContain('type: string');
    // the unchanged input is not listed, and nothing is shown as raw JSON
    expect(await inputs.locator('li[data-key="tickets"]').count()).toBe(0);
    expect(await inputs.textContent()).not.toContain('[{');
  });

  it('leaving a template destroys its compare views and an open rebase preview\'s editors', async () => {
    served = t.defer(
      await shippedMovedUnder(
        'quick-fix',
        (s) => s.replace(SHIPPED_PURPOSE, MY_PURPOSE).replace(OLD_GATE, MY_GATE),
        (s) => s.replace(SHIPPED_PURPOSE, NEW_PURPOSE).replace(OLD_GATE, NEW_GATE),
      ),
    );
    await open('#/');
    await page.getByRole('list', { name: 'Templates' }).waitFor();
    const list = await pageListeners(page);
    expect(list['document.selectionchange']).toBeUndefined();

    // the diff tab's compare view, then the rebase preview: an edit-both editor and the result's compare view
    await page.goto(`${served.base}/#/templates/quick-fix/diff`);
    await page.locator('#panel-diff .cm-mergeView').waitFor();
    await page.getByRole('link', { name: 'Source' }).click();
    await page.getByRole('button', { name: 'Preview rebase' }).click();
    const preview = page.getByRole('region', { name: 'Rebase preview' });
    await preview.getByRole('group', { name: 'Conflict 1 of 2' }).getByRole('radio', { name: 'Edit both' }).check();
    await preview.getByRole('group', { name: 'Conflict 2 of 2' }).getByRole('radio', { name: 'Take shipped' }).check();
    await preview.getByRole('textbox', { name: 'Your lines for conflict 1' }).waitFor();
    await preview.locator('.merge-result .cm-editor').first().waitFor();
    expect((await pageListeners(page))['document.selectionchange']).toBeGreaterThan(2);

    await page.goto(`${served.base}/#/`);
    await page.getByRole('list', { name: 'Templates' }).waitFor();
    expect(await pageListeners(page)).toEqual(list);
    // a compare view follows the window's width: one left behind would build its views again
    await page.setViewportSize({ width: 600, height: 900 });
    await page.evaluate('new Promise((r) => requestAnimationFrame(() => setTimeout(r, 100)))');
    expect(await pageListeners(page)).toEqual(list);
  });
});
