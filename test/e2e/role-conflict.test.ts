/**
 * Two tabs on one role: a tab with no edits follows a save made in the
 * other; a tab with edits meeting a 412 opens a three-way merge of each file
 * (base: the version it loaded, theirs: the saved one, mine: the editors)
 * whose result goes back into the editors unsaved; "Save mine over it" saves
 * what the editors hold at the click. Asserts the bytes the service answers
 * and holds on disk, editor texts and states.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { boxText, setBoxText } from './editor-page.js';
import { browserMissing, callApi, type Served, serve, useBrowser } from './harness.js';
import type { RoleAnswer } from '../../src/schema/roles.js';

const missing = browserMissing();
if (missing) console.warn(missing);

describe.skipIf(missing !== null)('two tabs on one role (e2e)', () => {
  const t = useBrowser();
  let served: Served;
  let a: Page;
  let b: Page;
  beforeEach(async () => {
    served = t.defer(await serve());
    a = await t.page();
    b = await t.page();
  });

  const md = (p: Page) => p.getByRole('textbox', { name: 'role.md of worker' });
  const kit = (p: Page) => p.getByRole('textbox', { name: 'kit.json of worker' });
  const saveButton = (p: Page) => p.getByRole('button', { name: 'Save role' });
  const dot = (p: Page) => p.locator('.page-head h2 .unsaved-dot');
  const disk = (f: string) => readFileSync(join(served.root, 'roles', 'worker', f), 'utf8');
  /** what the service answers for the role now: the bytes it loads */
  const saved = async (): Promise<RoleAnswer> => {
    const r = await callApi(served.base, 'GET', '/roles/worker');
    expect(r.status).toBe(200);
    return (await r.json()) as RoleAnswer;
  };
  async function open(p: Page): Promise<string> {
    await p.goto(`${served.base}/#/roles/worker`);
    await expect.poll(async () => (await boxText(md(p))).length).toBeGreaterThan(0);
    return boxText(md(p));
  }
  async function edit(p: Page, text: string): Promise<void> {
    await setBoxText(md(p), text);
    await expect.poll(() => saveButton(p).isEnabled()).toBe(true);
  }
  async function saveIn(p: Page): Promise<void> {
    await saveButton(p).click();
    await p.locator('.said', { hasText: 'Saved role worker' }).waitFor();
  }
  /** role.md with its first line (the heading) replaced */
  const heading = (src: string, to: string) => src.replace(/^# .*$/m, `# ${to}`);

  it('a tab with no edits follows a save made in another: the new text loads, no conflict, and its next save goes on from it', async () => {
    const shipped = await open(a);
    await open(b);
    const theirs = heading(shipped, 'Worker, saved in tab B');
    await edit(b, theirs);
    await saveIn(b);

    await expect.poll(() => boxText(md(a))).toBe(theirs);
    await a.locator('.page-head h2 .badge[data-state="edited"]').waitFor();
    expect(await a.locator('.conflict').count()).toBe(0);
    expect(await dot(a).isVisible()).toBe(false);
    const again = heading(theirs, 'Worker, then saved in tab A');
    await edit(a, again);
    await saveIn(a);
    expect((await saved()).role_md).toBe(again);
    expect(disk('role.md')).toBe(again);
  });

  it('a 412 opens the merge: each file merged over the version loaded, a clash is a choice, the result goes in the editors unsaved', async () => {
    const shipped = await open(a);
    await open(b);
    // A: the heading, a line at the end and a tool in the kit; B: the heading and a line after it
    const mine = `${heading(shipped, 'Worker from tab A')}End from A.\n`;
    await edit(a, mine);
    const kitMine = (await boxText(kit(a))).replace('"workspace.write"', '"workspace.write",\n    "web.fetch"');
    await setBoxText(kit(a), kitMine);
    const theirs = heading(shipped, 'Worker from tab B').replace('\n\n', '\n\nTop from B.\n');
    await edit(b, theirs);
    await saveIn(b);

    await saveButton(a).click();
    const box = a.getByRole('alert').filter({ hasText: 'changed elsewhere' });
    await box.getByRole('button', { name: 'Merge with the saved version' }).click();
    const merge = a.getByRole('region', { name: 'Merge with the saved version' });
    expect(await merge.getAttribute('data-conflicts')).toBe('1');
    const clash = merge.getByRole('group', { name: 'Conflict 1 of 1, in role.md' });
    expect(await clash.locator('.merge-side.mine pre').textContent()).toBe('# Worker from tab A\n');
    expect(await clash.locator('.merge-side.shipped pre').textContent()).toBe('# Worker from tab B\n');
    const use = merge.getByRole('button', { name: 'Use this' });
    expect(await use.isDisabled()).toBe(true);
    await clash.getByRole('radio', { name: 'Keep mine' }).check();
    await expect.poll(() => use.isEnabled()).toBe(true);
    await use.click();

    const expected = `${heading(shipped, 'Worker from tab A').replace('\n\n', '\n\nTop from B.\n')}End from A.\n`;
    await expect.poll(() => boxText(md(a))).toBe(expected);
    expect(await boxText(kit(a))).toBe(kitMine);
    // unsaved: the service still has theirs, the dot is on
    expect((await saved()).role_md).toBe(theirs);
    await dot(a).waitFor({ state: 'visible' });
    // Save now goes on from theirs: no second 412
    await saveIn(a);
    const after = await saved();
    expect(after.role_md).toBe(expected);
    expect(after.kit?.tools).toEqual(['shell.run', 'workspace.read', 'workspace.write', 'web.fetch']);
    expect(disk('role.md')).toBe(expected);
  });

  it('"Save mine over it" after a 412 saves what the editors hold at the click, with the If-Match of the version just seen', async () => {
    const shipped = await open(a);
    await open(b);
    await edit(a, heading(shipped, 'Mine from tab A'));
    const theirs = `${shipped}A line from B.\n`;
    await edit(b, theirs);
    await saveIn(b);

    await saveButton(a).click();
    const box = a.getByRole('alert').filter({ hasText: 'changed elsewhere' });
    await box.waitFor();
    expect((await saved()).role_md).toBe(theirs);
    // B's line taken in by hand after the 412: the click saves this text, not the one refused
    const mine = `${heading(shipped, 'Mine from tab A')}A line from B.\n`;
    await setBoxText(md(a), mine);
    await box.getByRole('button', { name: 'Save mine over it' }).click();
    await a.locator('.said', { hasText: 'Saved role worker' }).waitFor();
    expect((await saved()).role_md).toBe(mine);
    expect(disk('role.md')).toBe(mine);
    expect(await boxText(md(a))).toBe(mine);
    expect(await dot(a).isVisible()).toBe(false);
    // and tab B, with no edits, follows it
    await expect.poll(() => boxText(md(b))).toBe(mine);
  });
});
