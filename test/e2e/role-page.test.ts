/**
 * The role page edits like the template page: role.md and kit.json in
 * editors, the kit checked as typed by the service's own check, the unsaved
 * dot, Ctrl+S, the in-page leave question, and a save made in another tab
 * followed (no edits) or met as a conflict (edits). Asserts bytes on disk,
 * codes and states.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { boxText, setBoxText } from './editor-page.js';
import { browserMissing, callApi, type Served, usePage } from './harness.js';

const missing = browserMissing();
if (missing) console.warn(missing);

describe.skipIf(missing !== null)('role page (e2e)', () => {
  let served: Served;
  let page: Page;
  usePage((s, p) => {
    served = s;
    page = p;
  });
  const md = (p: Page = page) => p.getByRole('textbox', { name: 'role.md of worker' });
  const kit = (p: Page = page) => p.getByRole('textbox', { name: 'kit.json of worker' });
  const dot = () => page.locator('.page-head h2 .unsaved-dot');
  const roleFile = (f: string) => join(served.root, 'roles', 'worker', f);

  async function open(p: Page = page): Promise<void> {
    await p.goto(`${served.base}/#/roles/worker`);
    await expect.poll(async () => (await boxText(md(p))).length).toBeGreaterThan(0);
  }

  it('typing in role.md shows the dot, and Ctrl+S saves it (never the browser save dialog)', async () => {
    await open();
    expect(await dot().isHidden()).toBe(true);
    await md().click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('\nAlso: write tests first.\n');
    await dot().waitFor({ state: 'visible' });
    await page.keyboard.press('Control+s');
    await page.locator('h2 .badge[data-state="edited"]').waitFor();
    expect(readFileSync(roleFile('role.md'), 'utf8')).toContain('Also: write tests first.');
    expect(await dot().isHidden()).toBe(true);
  });

  it('kit.json is checked as typed: an unknown tool is listed and marked, Save closed; the boxes write it', async () => {
    await open();
    const before = await boxText(kit());
    expect(JSON.parse(before)).toHaveProperty('tools');
    await setBoxText(kit(), '{ "tools": ["web.fetch", "no.such_tool"] }\n');
    const item = page.locator('ul[aria-label="Problems in kit.json"] > li[data-code="tool.unknown"]');
    await item.waitFor();
    expect(await item.getAttribute('data-path')).toBe('/kit/tools/1');
    await page.locator('.role-kit .cm-lintRange-error', { hasText: '"no.such_tool"' }).waitFor();
    expect(await page.getByRole('button', { name: 'Save role' }).isDisabled()).toBe(true);
    await page.keyboard.press('Control+s');
    expect(existsSync(roleFile('kit.json'))).toBe(false);

    // not JSON (a trailing comma on line 8): listed under kit.json at the comma's line and column, the boxes closed saying why
    await setBoxText(kit(), '{\n  "tools": [\n    "web.fetch",\n    "fs.read",\n    "fs.write",\n    "shell.run",\n    "git.diff",\n    "git.log",\n  ]\n}\n');
    const syntax = page.locator('ul[aria-label="Problems in kit.json"] > li[data-code="type.mismatch"]');
    await syntax.waitFor();
    expect(await syntax.getAttribute('data-line')).toBe('8');
    expect(await syntax.locator('.at').textContent()).toBe('8:14');
    expect(await page.locator('ul[aria-label="Problems in role.md"] > li').count()).toBe(0);
    await page.locator('.role-kit .cm-lintRange-error', { hasText: ',' }).waitFor();
    expect(await page.getByRole('checkbox', { name: 'web.fetch' }).isDisabled()).toBe(true);
    expect(await page.locator('#kit-why').textContent()).toContain('cannot be read as a kit');

    // a box of the kit writes kit.json: the unknown tool removed by hand, then web.fetch unticked
    await setBoxText(kit(), '{ "tools": ["web.fetch"] }\n');
    await expect.poll(() => page.getByRole('checkbox', { name: 'web.fetch' }).isChecked()).toBe(true);
    await page.getByRole('checkbox', { name: 'web.fetch' }).uncheck();
    expect(JSON.parse(await boxText(kit()))).toEqual({ tools: [] });
    await page.getByRole('button', { name: 'Save role' }).click();
    await page.locator('h2 .badge[data-state="edited"]').waitFor();
    expect(JSON.parse(readFileSync(roleFile('kit.json'), 'utf8'))).toEqual({ tools: [] });
  });

  it('leaving with an edited role.md asks in the page; Stay keeps it, Leave goes; back asks too', async () => {
    const native: string[] = [];
    page.on('dialog', (d) => {
      native.push(d.type());
      void d.dismiss();
    });
    await page.goto(`${served.base}/#/`);
    await page.getByRole('link', { name: /^role worker,/ }).click();
    await expect.poll(async () => (await boxText(md())).length).toBeGreaterThan(0);
    await setBoxText(md(), 'Edited here.\n');
    const question = page.getByRole('dialog', { name: /Leave this page/ });
    await page.locator('.crumbs').getByRole('link', { name: 'Library' }).click();
    await question.getByRole('button', { name: 'Stay' }).click();
    expect(new URL(page.url()).hash).toBe('#/roles/worker');
    expect(await boxText(md())).toBe('Edited here.\n');

    await page.goBack();
    await question.waitFor();
    await question.getByRole('button', { name: 'Leave' }).click();
    await page.getByRole('list', { name: 'Roles' }).or(page.locator('.library')).first().waitFor();
    expect(new URL(page.url()).hash).toBe('#/');
    expect(native).toEqual([]);
  });

  it('a save made elsewhere: followed with no edits, met as a conflict with edits (Save mine over it writes what the editor holds)', async () => {
    await open();
    const first = await boxText(md());
    const r = await callApi(served.base, 'POST', '/role', { name: 'worker', role_md: `${first}Saved elsewhere.\n`, kit: null });
    expect(r.status).toBe(200);
    await expect.poll(() => boxText(md())).toBe(`${first}Saved elsewhere.\n`);
    await page.locator('h2 .badge[data-state="edited"]').waitFor();
    expect(await page.locator('.conflict').count()).toBe(0);

    await setBoxText(md(), 'Mine.\n');
    const etag = (await callApi(served.base, 'GET', '/roles/worker')).headers.get('etag')!;
    expect((await callApi(served.base, 'POST', '/role', { name: 'worker', role_md: 'Theirs.\n', kit: null }, { 'if-match': etag })).status).toBe(200);
    await page.getByRole('group', { name: 'Changed elsewhere' }).waitFor();
    expect(await boxText(md())).toBe('Mine.\n');
    await setBoxText(md(), 'Mine, then more.\n');
    await page.getByRole('button', { name: 'Save mine over it' }).click();
    await expect.poll(() => readFileSync(roleFile('role.md'), 'utf8')).toBe('Mine, then more.\n');
  });
});
