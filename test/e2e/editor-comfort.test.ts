/**
 * The editor's YAML comfort and the page on a narrow window: Enter after
 * `key:` and inside a block list indents as YAML wants; Escape then Tab
 * leaves the editor even with a selection; at 800 px the problems sit above
 * the editor and fold away, and the graph keeps its labels at reading size.
 */
import { describe, expect, it } from 'vitest';
import { cursorToLineEnd, editorCursor, editorText, sourceBox } from './editor-page.js';
import { browserMissing, serve, useBrowser } from './harness.js';

const missing = browserMissing();
if (missing) console.warn(missing);

describe.skipIf(missing !== null)('editor comfort and narrow windows (e2e)', () => {
  const t = useBrowser();

  it('Enter after `key:` indents one step; in a block list the next line lines up with the item', async () => {
    const served = t.defer(await serve());
    const page = await t.page();
    await page.goto(`${served.base}/#/templates/quick-fix`);
    await expect.poll(() => editorText(page, 'quick-fix')).toContain('name: quick-fix');
    await cursorToLineEnd(page, 'quick-fix', '  inputs:');
    await page.keyboard.press('Enter');
    expect(await editorCursor(page, 'quick-fix')).toMatchObject({ column: 5 });
    await page.keyboard.press('Control+z');
    await cursorToLineEnd(page, 'quick-fix', '    - name: tickets');
    await page.keyboard.press('Enter');
    // under `name`, so `required: true` belongs to the same item
    expect(await editorCursor(page, 'quick-fix')).toMatchObject({ column: 7 });
    await page.keyboard.press('Control+z');
    await cursorToLineEnd(page, 'quick-fix', 'nodes:');
    await page.keyboard.press('Enter');
    expect(await editorCursor(page, 'quick-fix')).toMatchObject({ column: 3 });
  });

  it('with a selection, Escape then Tab leaves the editor and changes nothing', async () => {
    const served = t.defer(await serve());
    const page = await t.page();
    await page.goto(`${served.base}/#/templates/quick-fix`);
    await expect.poll(() => editorText(page, 'quick-fix')).toContain('name: quick-fix');
    const before = await editorText(page, 'quick-fix');
    await cursorToLineEnd(page, 'quick-fix', 'name: quick-fix');
    await page.keyboard.press('Shift+Home');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Tab');
    expect(await editorText(page, 'quick-fix')).toBe(before);
    expect(await sourceBox(page, 'quick-fix').evaluate((el) => el.contains((el.getRootNode() as unknown as { activeElement: unknown }).activeElement as never))).toBe(false);
  });

  it('at 800 px: the problems under the editor (their Tab order), folding away; the graph labels stay at 11 px or more', async () => {
    const served = t.defer(await serve());
    const page = await t.page({ viewport: { width: 800, height: 900 } });
    await page.goto(`${served.base}/#/templates/quick-fix`);
    await expect.poll(() => editorText(page, 'quick-fix')).toContain('name: quick-fix');
    const pane = page.getByRole('region', { name: 'Problems in the source' });
    const paneBox = (await pane.boundingBox())!;
    const codeBox = (await page.locator('.cm-editor').first().boundingBox())!;
    // seen in the order Tab reaches them: the editor, then its problems
    expect(codeBox.y + codeBox.height).toBeLessThanOrEqual(paneBox.y + 1);
    const fold = pane.getByRole('button', { name: 'Hide the problems' });
    await fold.click();
    expect(await pane.getByRole('button', { name: 'Show the problems' }).getAttribute('aria-expanded')).toBe('false');

    await page.getByRole('link', { name: 'Card' }).click();
    const svg = page.locator('svg.graph').first();
    await svg.waitFor();
    const scale = await svg.evaluate((el) => {
      const g = el as unknown as { getBoundingClientRect(): { width: number }; viewBox: { baseVal: { width: number } } };
      return g.getBoundingClientRect().width / g.viewBox.baseVal.width;
    });
    // the node kinds are 12 px in the drawing's own units
    expect(12 * scale).toBeGreaterThanOrEqual(11);
  });

  it('replacing a selection by typing or filling writes no inline style (the page’s CSP is never tried)', async () => {
    const served = t.defer(await serve());
    const page = await t.page();
    await page.goto(`${served.base}/#/templates/write`);
    await expect.poll(() => editorText(page, 'write')).toContain('name: write');
    const text = await editorText(page, 'write');
    await sourceBox(page, 'write').click();
    await page.keyboard.press('Control+a');
    await page.keyboard.type('x');
    await expect.poll(() => editorText(page, 'write')).toBe('x');
    await sourceBox(page, 'write').fill(text.replace('write', 'write '));
    await expect.poll(() => editorText(page, 'write')).toBe(text.replace('write', 'write '));
    // the harness fails this test on any console message about the Content Security Policy
  });
});
