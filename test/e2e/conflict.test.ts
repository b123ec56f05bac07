/**
 * Two tabs on one template: a tab with no edits follows a save made in the
 * other; a tab with edits meets it as a conflict whose three-way merge
 * (base: the version it loaded, theirs: the saved one, mine: the editor)
 * goes back into the editor unsaved; "Save mine over it" saves what the
 * editor holds at the click. Asserts bytes on disk, editor text and states.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { editorText, setEditorText } from './editor-page.js';
import { browserMissing, type Served, serve, useBrowser } from './harness.js';

const missing = browserMissing();
if (missing) console.warn(missing);

describe.skipIf(missing !== null)('two tabs on one template (e2e)', () => {
  const t = useBrowser();
  let served: Served;
  let a: Page;
  let b: Page;
  beforeEach(async () => {
    served = t.defer(await serve());
    a = await t.page();
    b = await t.page();
  });

  const disk = (name: string) => readFileSync(join(served.root, 'templates', `${name}.yaml`), 'utf8');
  const saveButton = (p: Page) => p.getByRole('button', { name: 'Save', exact: true });
  async function open(p: Page, name: string): Promise<string> {
    await p.goto(`${served.base}/#/templates/${name}`);
    await expect.poll(() => editorText(p, name)).toContain(`name: ${name}`);
    return editorText(p, name);
  }
  async function edit(p: Page, name: string, text: string): Promise<void> {
    await setEditorText(p, name, text);
    await expect.poll(() => saveButton(p).isEnabled()).toBe(true);
  }
  async function saveIn(p: Page): Promise<void> {
    await saveButton(p).click();
    await p.locator('.said', { hasText: 'Saved.' }).waitFor();
  }
  const purpose = (src: string, to: string) => src.replace(/^ {2}purpose: .*$/m, `  purpose: ${to}`);

  it('a tab with no edits follows a save made in another: the new text loads, no conflict, the state follows', async () => {
    const shipped = await open(a, 'write');
    await open(b, 'write');
    const theirs = purpose(shipped, 'Saved in tab B');
    await edit(b, 'write', theirs);
    await saveIn(b);

    await expect.poll(() => editorText(a, 'write')).toBe(theirs);
    await a.locator('.page-head h2 .badge[data-state="edited"]').waitFor();
    // said in the live region, not as a conflict
    await expect.poll(async () => (await a.locator('#status').textContent()) ?? '').toContain('saved elsewhere');
    expect(await a.locator('.conflict').count()).toBe(0);
    expect(await a.getByRole('button', { name: 'Save mine over it' }).count()).toBe(0);
    expect(await a.locator('.page-head h2 .unsaved-dot').isVisible()).toBe(false);
    // and its next save goes on from the new version, not a 412
    const again = purpose(theirs, 'Then saved in tab A');
    await edit(a, 'write', again);
    await saveIn(a);
    expect(disk('write')).toBe(again);
  });

  it('"Save mine over it" saves what the editor holds at the click, not the text at the 412', async () => {
    const shipped = await open(a, 'write');
    await open(b, 'write');
    const mine = purpose(shipped, 'Mine from tab A');
    await edit(a, 'write', mine);
    const theirs = `${purpose(shipped, 'Theirs from tab B')}# a line from B\n`;
    await edit(b, 'write', theirs);
    await saveIn(b);

    // tab A heard of it while edited: asked, nothing lost
    const heard = a.getByRole('group', { name: 'Changed elsewhere' });
    await heard.waitFor();
    await saveButton(a).click();
    const box = a.getByRole('alert').filter({ hasText: 'changed elsewhere' });
    await box.waitFor();
    expect(disk('write')).toBe(theirs);
    // the other tab's line merged by hand after the 412
    const merged = `${mine}# a line from B\n`;
    await setEditorText(a, 'write', merged);
    await box.getByRole('button', { name: 'Save mine over it' }).click();
    await a.locator('.said', { hasText: 'Saved.' }).waitFor();
    expect(disk('write')).toBe(merged);
    expect(await editorText(a, 'write')).toBe(merged);
    expect(await a.locator('.page-head h2 .unsaved-dot').isVisible()).toBe(false);
  });

  it('a 412 opens a three-way merge: lines changed on one side each merge cleanly, a clash is a choice, the result goes in the editor unsaved', async () => {
    const shipped = await open(a, 'write');
    await open(b, 'write');
    // A: the purpose and a line at the end; B: the purpose and a line at the top
    const mine = `${purpose(shipped, 'Mine from tab A')}# end from A\n`;
    await edit(a, 'write', mine);
    const theirs = `# top from B\n${purpose(shipped, 'Theirs from tab B')}`;
    await edit(b, 'write', theirs);
    await saveIn(b);

    await saveButton(a).click();
    const box = a.getByRole('alert').filter({ hasText: 'changed elsewhere' });
    await box.getByRole('button', { name: 'Merge with the saved version' }).click();
    const merge = a.getByRole('region', { name: 'Merge with the saved version' });
    expect(await merge.getAttribute('data-conflicts')).toBe('1');
    const clash = merge.getByRole('group', { name: 'Conflict 1 of 1' });
    expect(await clash.locator('.merge-side.mine pre').textContent()).toBe('  purpose: Mine from tab A\n');
    expect(await clash.locator('.merge-side.shipped pre').textContent()).toBe('  purpose: Theirs from tab B\n');
    await clash.getByRole('radio', { name: 'Keep mine' }).check();
    const use = merge.getByRole('button', { name: 'Use this' });
    await expect.poll(() => use.isEnabled()).toBe(true);
    await use.click();

    const expected = `# top from B\n${purpose(shipped, 'Mine from tab A')}# end from A\n`;
    await expect.poll(() => editorText(a, 'write')).toBe(expected);
    // unsaved: the disk still has theirs, the dot is on
    expect(disk('write')).toBe(theirs);
    await a.locator('.page-head h2 .unsaved-dot').waitFor({ state: 'visible' });
    // Save now goes on from theirs: no second 412
    await saveIn(a);
    expect(disk('write')).toBe(expected);
  });
});
