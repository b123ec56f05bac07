/**
 * The template editor (CodeMirror) in a real browser: problems from the
 * page's own validator as squiggles, gutter marks and the problems panel,
 * with no round trip; completion from the format's catalogues; Ctrl+S saves
 * through the Save button's path; leaving with unsaved text asks first.
 * Each test asserts codes, lines, bytes on disk and ETags.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { cursorToLineEnd, editorCursor, editorText, setEditorText, sourceBox } from './editor-page.js';
import { browserMissing, pageListeners, type Served, usePage } from './harness.js';

const missing = browserMissing();
if (missing) console.warn(missing);

describe.skipIf(missing !== null)('template editor (e2e)', () => {
  let served: Served;
  let page: Page;
  usePage((s, p) => {
    served = s;
    page = p;
  });

  const api = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(`${served.base}/api/desk${path}`, {
      method,
      headers: { origin: served.base, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: r.status, etag: r.headers.get('etag'), json: (await r.json().catch(() => null)) as Record<string, unknown> | null };
  };
  const copyPath = (name: string) => join(served.root, 'templates', `${name}.yaml`);
  const dot = () => page.locator('.page-head h2 .unsaved-dot');

  async function open(name: string): Promise<string> {
    await page.goto(`${served.base}/#/templates/${name}`);
    await expect.poll(() => editorText(page, name)).toContain(`name: ${name}`);
    return editorText(page, name);
  }

  it('typing an unknown profile puts a squiggle and a gutter mark on its line, and lists it, with no round trip', async () => {
    // the card preview asks the service; the problems must not need it, so that answer never comes
    await page.route('**/api/desk/templates/propose', (route) => route.abort());
    const refused: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy/.test(m.text())) refused.push(m.text());
    });
    const before = await open('quick-fix');
    // CodeMirror's own styles apply under the page's CSP: its theme's fixed height holds (unstyled, the editor grows to its ~2,900 px of text)
    expect((await page.locator('.cm-editor').boundingBox())!.height).toBeLessThanOrEqual(562);
    const line = before.split('\n').findIndex((l) => l.includes('profile: workspace_write')) + 1;
    const column = before.split('\n')[line - 1]!.indexOf('workspace_write') + 1;
    expect(line).toBeGreaterThan(1);

    await cursorToLineEnd(page, 'quick-fix', 'profile: workspace_write');
    await page.keyboard.type('x');
    expect((await editorText(page, 'quick-fix')).split('\n')[line - 1]).toMatch(/profile: workspace_writex$/);

    // the squiggle: on the typed line, over the value
    const squiggle = sourceBox(page, 'quick-fix').locator('.cm-line', { hasText: 'workspace_writex' }).locator('.cm-lintRange-error');
    await squiggle.waitFor();
    expect(await squiggle.textContent()).toBe('workspace_writex');
    // the gutter mark: level with that line
    const mark = page.locator('.cm-gutter-lint .cm-lint-marker-error');
    await mark.first().waitFor();
    const lineBox = await sourceBox(page, 'quick-fix').locator('.cm-line', { hasText: 'workspace_writex' }).boundingBox();
    const markTops = await mark.evaluateAll((els) => els.map((e) => e.getBoundingClientRect()));
    expect(markTops.some((r) => Math.abs(r.top + r.height / 2 - (lineBox!.y + lineBox!.height / 2)) < lineBox!.height / 2)).toBe(true);

    // the panel: code, line and column; Save stays closed
    const item = page.locator('ul[aria-label="Problems"] > li[data-code="model.profile_unknown"]');
    await item.waitFor();
    expect(Number(await item.getAttribute('data-line'))).toBe(line);
    expect(await item.locator('.at').textContent()).toBe(`${line}:${column}`);
    expect(await page.getByRole('button', { name: 'Save', exact: true }).isDisabled()).toBe(true);

    // a click on the problem puts the cursor at its line and column
    await item.getByRole('button').click();
    expect(await editorCursor(page, 'quick-fix')).toEqual({ line, column });

    // fixed again: the problem goes, and the text is the saved one (no dot)
    await cursorToLineEnd(page, 'quick-fix', 'workspace_writex');
    await page.keyboard.press('Backspace');
    await expect.poll(() => item.count()).toBe(0);
    expect(await squiggle.count()).toBe(0);
    expect(await dot().isHidden()).toBe(true);
    expect(refused).toEqual([]);
  });

  it('completion offers human_gate where a builtin goes, and accepting it writes it', async () => {
    const before = await open('quick-fix');
    await cursorToLineEnd(page, 'quick-fix', 'builtin: human_gate');
    for (let i = 0; i < 'human_gate'.length; i++) await page.keyboard.press('Backspace');
    await page.keyboard.type('hu');
    const option = page.locator('.cm-tooltip-autocomplete li', { hasText: 'human_gate' });
    await option.waitFor();
    // only builtins are offered there, not profiles or tools
    const labels = await page.locator('.cm-tooltip-autocomplete li .cm-completionLabel').allTextContents();
    expect(labels).toContain('human_gate');
    expect(labels).not.toContain('workspace_write');
    // a click, not Enter: CodeMirror ignores Enter for a moment after the list changes, which a busy machine can hit
    await option.click();
    await expect.poll(() => editorText(page, 'quick-fix')).toBe(before);
  });

  it("completion offers a node's outlets in a cord and the declared inputs in a prompt", async () => {
    await open('quick-fix');
    await cursorToLineEnd(page, 'quick-fix', '- { from: intake.done, to: work.start }');
    await page.keyboard.press('Enter');
    await page.keyboard.type('- { from: gate.');
    await page.locator('.cm-tooltip-autocomplete').waitFor();
    const ports = await page.locator('.cm-tooltip-autocomplete li .cm-completionLabel').allTextContents();
    expect(ports).toEqual(expect.arrayContaining(['gate.approved', 'gate.rejected']));
    expect(ports).not.toContain('gate.in');
    await page.keyboard.press('Escape');

    await cursorToLineEnd(page, 'quick-fix', 'Approve to land this fix');
    await page.keyboard.type(' {{inputs.');
    await page.locator('.cm-tooltip-autocomplete li', { hasText: 'tickets' }).waitFor();
  });

  it('Ctrl+S saves through the Save path: bytes on disk, a new ETag, the dot gone', async () => {
    const before = await api('GET', '/templates/write');
    await open('write');
    expect(await dot().isHidden()).toBe(true);
    await cursorToLineEnd(page, 'write', 'purpose:');
    await page.keyboard.type(' (edited)');
    await dot().waitFor({ state: 'visible' });

    await page.keyboard.press('Control+s');
    await expect.poll(() => page.locator('.page-head h2 .badge').getAttribute('data-state')).toBe('edited');
    const text = await editorText(page, 'write');
    expect(text).toMatch(/^ {2}purpose: .* \(edited\)$/m);
    expect(readFileSync(copyPath('write'), 'utf8')).toBe(text);
    const after = await api('GET', '/templates/write');
    expect(after.etag).not.toBe(before.etag);
    expect(await dot().isHidden()).toBe(true);

    // nothing to save: Ctrl+S writes nothing
    await page.keyboard.press('Control+s');
    expect((await api('GET', '/templates/write')).etag).toBe(after.etag);
  });

  it('Ctrl+S on a stale copy meets the ETag guard: nothing written, the conflict shown', async () => {
    await open('write');
    await cursorToLineEnd(page, 'write', 'purpose:');
    await page.keyboard.type(' (mine)');
    const current = String((await api('GET', '/templates/write')).json!.source);
    const theirs = current.replace(/^ {2}purpose: .*$/m, '  purpose: Theirs');
    expect((await api('PUT', '/templates/write', { source: theirs })).status).toBe(200);

    await sourceBox(page, 'write').focus();
    await page.keyboard.press('Control+s');
    await page.getByRole('alert').filter({ hasText: 'changed elsewhere' }).first().waitFor();
    expect(readFileSync(copyPath('write'), 'utf8')).toBe(theirs);
    expect(await editorText(page, 'write')).toMatch(/\(mine\)/);
  });

  it('leaving with unsaved text asks in the page: Stay keeps the text, Leave leaves; back asks too; never confirm()', async () => {
    await page.goto(`${served.base}/#/`);
    await page.getByRole('link', { name: 'template write, shipped', exact: true }).click();
    await expect.poll(() => editorText(page, 'write')).toContain('name: write');
    await cursorToLineEnd(page, 'write', 'purpose:');
    await page.keyboard.type(' (unsaved)');
    await dot().waitFor({ state: 'visible' });

    // the question is the page's own dialog, never the browser's confirm()
    const native: string[] = [];
    page.on('dialog', (d) => {
      native.push(d.type());
      void d.dismiss();
    });
    const question = page.getByRole('dialog', { name: /Leave this page/ });
    await page.locator('.crumbs').getByRole('link', { name: 'Library' }).click();
    await question.waitFor();
    // Stay has the focus: a stray Enter loses nothing
    expect(await page.evaluate<string | null>('document.activeElement && document.activeElement.textContent')).toBe('Stay');
    await page.keyboard.press('Enter');
    await question.waitFor({ state: 'detached' });
    expect(new URL(page.url()).hash).toBe('#/templates/write');
    expect(await editorText(page, 'write')).toContain('(unsaved)');

    // browser back: asked after the fact; staying (Escape) puts the template's address back
    await page.goBack();
    await question.waitFor();
    await expect.poll(() => new URL(page.url()).hash).toBe('#/templates/write');
    await page.keyboard.press('Escape');
    await question.waitFor({ state: 'detached' });
    expect(await editorText(page, 'write')).toContain('(unsaved)');

    await page.locator('.crumbs').getByRole('link', { name: 'Library' }).click();
    await question.getByRole('button', { name: 'Leave' }).click();
    await page.getByRole('link', { name: 'template write, shipped', exact: true }).waitFor();
    expect(new URL(page.url()).hash).toBe('#/');
    expect(native).toEqual([]);
  });

  it('a template stored with CRLF line ends opens clean: no dot, leaving does not ask', async () => {
    const lf = String((await api('GET', '/templates/write')).json!.source);
    expect((await api('PUT', '/templates/write', { source: lf.replaceAll('\n', '\r\n') })).status).toBe(200);
    await open('write');
    let asked = 0;
    page.on('dialog', (d) => {
      asked++;
      void d.dismiss();
    });
    expect(await dot().isHidden()).toBe(true);
    await page.locator('.crumbs').getByRole('link', { name: 'Library' }).click();
    await page.getByRole('link', { name: 'template write, edited', exact: true }).waitFor();
    expect(asked).toBe(0);
  });

  it('switching tabs of the same template does not ask', async () => {
    await open('write');
    await cursorToLineEnd(page, 'write', 'purpose:');
    await page.keyboard.type(' (draft)');
    let asked = 0;
    page.on('dialog', (d) => {
      asked++;
      void d.dismiss();
    });
    await page.getByRole('link', { name: 'Card' }).click();
    await expect.poll(() => new URL(page.url()).hash).toBe('#/templates/write/card');
    await page.getByRole('link', { name: 'Source' }).click();
    expect(asked).toBe(0);
    expect(await editorText(page, 'write')).toContain('(draft)');
  });

  /**
   * Types `count` letters at the end of `line`, each waited for until its check has set the
   * editor's status; answers the statuses the editor took and the page's layouts meanwhile.
   */
  async function typeChecked(name: string, line: string, count: number): Promise<{ statuses: string[]; layouts: number }> {
    await cursorToLineEnd(page, name, line);
    // into a comment: the problems stay as they are, so a key's only work is its own paint and check
    await page.keyboard.type(' # ');
    await expect.poll(() => page.locator('.editor').getAttribute('data-status')).toBe('valid');
    // every status the editor takes, in order (a string: the tests' TypeScript has no DOM types)
    await page.evaluate(`{
      window.__statuses = [];
      const editor = document.querySelector('.editor');
      new MutationObserver(() => window.__statuses.push(editor.dataset.status)).observe(editor, { attributes: true, attributeFilter: ['data-status'] });
    }`);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    const layouts = async () => (await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'LayoutCount')!.value;
    const before = await layouts();
    const settled = () => page.evaluate(() => (globalThis as unknown as { __statuses: string[] }).__statuses.filter((st) => st !== 'checking').length);
    for (let i = 0; i < count; i++) {
      await page.keyboard.press('KeyQ');
      await expect.poll(settled).toBe(i + 1);
    }
    const after = await layouts();
    await cdp.detach();
    return { statuses: await page.evaluate(() => (globalThis as unknown as { __statuses: string[] }).__statuses), layouts: after - before };
  }

  it('a key lays the page out once: a check on the main thread never shows checking; the Worker’s does until it answers', async () => {
    // the card preview's answer redraws its panel: not a key's work
    await page.route('**/api/desk/templates/propose', (route) => route.abort());
    const saved = await open('quick-fix');
    const small = await typeChecked('quick-fix', 'profile: workspace_write', 20);
    // every key's check ends valid without passing through checking
    expect(small.statuses).toEqual(Array(20).fill('valid'));
    // one layout a key (its paint), with a little room for the page's own: it was two a key when the
    // status went checking and back, rewriting the Save hint after every paint
    expect(small.layouts).toBeLessThanOrEqual(20 + 4);
    // back to the saved text, so leaving does not ask
    await setEditorText(page, 'quick-fix', saved);
    await expect.poll(() => dot().isHidden()).toBe(true);

    // over 16 KiB the check goes to the Worker and takes longer than a task: the status says so
    const shipped = (await api('GET', '/templates/quick-fix')).json!.source as string;
    const big = `${shipped.replace('name: quick-fix', 'name: long-notes')}${'# a long note, to pass 16 KiB\n'.repeat(700)}`;
    expect(Buffer.byteLength(big)).toBeGreaterThan(16 * 1024);
    expect((await api('PUT', '/templates/long-notes', { source: big })).status).toBe(200);
    await open('long-notes');
    const large = await typeChecked('long-notes', 'profile: workspace_write', 3);
    expect(large.statuses).toContain('checking');
    expect(large.statuses.at(-1)).toBe('valid');
  });

  it('leaving a template lets go of its editor: listeners on the document and window do not pile up', async () => {
    await open('quick-fix');
    const one = await pageListeners(page);
    expect(one['document.selectionchange']).toBeGreaterThan(0);
    for (const name of ['write', 'research', 'quick-fix']) {
      await open(name);
      expect(await pageListeners(page)).toEqual(one);
    }
    await page.goto(`${served.base}/#/`);
    await page.getByRole('list', { name: 'Templates' }).waitFor();
    expect((await pageListeners(page))['document.selectionchange']).toBeUndefined();
  });
});
