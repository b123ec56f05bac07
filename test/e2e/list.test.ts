/**
 * The library list and the details around it, in Chromium: the row menu
 * (reset after confirmation, duplicate as a new template), the state chips
 * and the empty-filter message, the `outside` filter, role Save closed while
 * unchanged, where the focus goes after an action, and the New template
 * name field (its pattern compiles, a bad name is answered beside it).
 * Asserts states, bytes on disk, focus targets and codes — not wording.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { boxText, setBoxText, sourceBox } from './editor-page.js';
import { browserMissing, callApi, type Served, usePage } from './harness.js';

const missing = browserMissing();
if (missing) console.warn(missing);

describe.skipIf(missing !== null)('the library list (e2e)', () => {
  let served: Served;
  let page: Page;
  const consoleErrors: string[] = [];
  usePage(
    (s, p) => {
      served = s;
      page = p;
    },
    {
      init: async (p) => {
        consoleErrors.length = 0;
        p.on('console', (m) => {
          if (m.type() === 'error') consoleErrors.push(m.text());
        });
        p.on('pageerror', (e) => consoleErrors.push(String(e)));
      },
    },
  );

  const api = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => callApi(served.base, method, path, body, headers);
  const copyPath = (name: string) => join(served.root, 'templates', `${name}.yaml`);
  const shippedSource = async (name: string) => ((await (await api('GET', `/templates/${name}`)).json()) as { source: string }).source;
  /** an edited copy saved through the API */
  const edit = async (name: string) => {
    const s = await shippedSource(name);
    expect((await api('PUT', `/templates/${name}`, { source: `${s}# edited here\n` })).status).toBe(200);
  };
  const row = (name: string, kind = 'template') => page.locator(`.library li[data-key="${kind}:${name}"]`);
  const visibleRows = (list: 'Templates' | 'Roles') =>
    page.locator(`ul[aria-label="${list}"] > li:not([hidden])`).evaluateAll((lis) => lis.map((li) => li.getAttribute('data-name')));
  /** what has the focus: its tag, and its text or accessible name */
  const focused = () =>
    // a string, not a function: the test files are compiled without the DOM lib
    page.evaluate<{ tag: string | null; text: string; cls: string }>(`(() => {
      const a = document.activeElement;
      return { tag: a ? a.tagName.toLowerCase() : null, text: ((a && (a.getAttribute('aria-label') ?? a.textContent)) || '').trim(), cls: a ? String(a.className) : '' };
    })()`);

  async function openList(): Promise<void> {
    await page.goto(`${served.base}/#/`);
    await page.getByRole('link', { name: 'template quick-fix,', exact: false }).first().waitFor();
  }

  async function openMenu(name: string, kind = 'template'): Promise<void> {
    await page.getByRole('button', { name: `Actions for ${kind} ${name}`, exact: true }).click();
  }

  it('resets a copy from its row after confirmation: Cancel first, then the file is gone and the row reads shipped', async () => {
    await edit('quick-fix');
    expect(existsSync(copyPath('quick-fix'))).toBe(true);
    await openList();
    expect(await row('quick-fix').getAttribute('data-state')).toBe('edited');

    await openMenu('quick-fix');
    await row('quick-fix').getByRole('button', { name: 'Reset to shipped' }).click();
    const confirm = row('quick-fix').getByRole('group', { name: 'Confirm' });
    await confirm.waitFor();
    // a destructive question starts on Cancel, and nothing happens before the answer
    expect(await focused()).toMatchObject({ tag: 'button', text: 'Cancel' });
    expect(existsSync(copyPath('quick-fix'))).toBe(true);

    // Cancel gives the focus back to the row's menu button
    await page.keyboard.press('Enter');
    await confirm.waitFor({ state: 'detached' });
    expect(await focused()).toMatchObject({ tag: 'button', text: 'Actions for template quick-fix' });

    await openMenu('quick-fix');
    await row('quick-fix').getByRole('button', { name: 'Reset to shipped' }).click();
    await confirm.getByRole('button', { name: 'Yes, reset' }).click();
    await expect.poll(() => row('quick-fix').getAttribute('data-state')).toBe('shipped');
    expect(existsSync(copyPath('quick-fix'))).toBe(false);
    // the result is said in the row, and the focus is there, not on <body>
    await row('quick-fix').locator('.said').waitFor();
    await expect.poll(async () => (await focused()).cls).toContain('said');
    // no reset is offered for what is now shipped
    await openMenu('quick-fix');
    expect(await row('quick-fix').getByRole('button', { name: 'Reset to shipped' }).count()).toBe(0);
  });

  it('duplicates a template from its row menu as a new custom template, create only', async () => {
    await openList();
    await openMenu('write');
    await row('write').getByRole('button', { name: 'Duplicate as new template' }).click();
    const name = row('write').getByRole('textbox', { name: 'Name of the copy of write' });
    expect(await focused()).toMatchObject({ tag: 'input' });

    // a name that exists is refused (412 from If-None-Match: *), nothing is overwritten
    await edit('quick-fix');
    const before = readFileSync(copyPath('quick-fix'), 'utf8');
    await name.fill('quick-fix');
    await row('write').getByRole('button', { name: 'Create copy' }).click();
    await row('write').getByRole('alert').waitFor();
    expect(readFileSync(copyPath('quick-fix'), 'utf8')).toBe(before);

    // a bad name is answered beside the field, before any request
    await name.fill('Not A Name');
    await row('write').getByRole('button', { name: 'Create copy' }).click();
    expect(await name.getAttribute('aria-invalid')).toBe('true');
    expect(existsSync(copyPath('Not A Name'))).toBe(false);

    await name.fill('write-notes');
    await row('write').getByRole('button', { name: 'Create copy' }).click();
    await page.locator('.page-head h2 .badge[data-state="custom"]').waitFor();
    const copy = readFileSync(copyPath('write-notes'), 'utf8');
    const shipped = await shippedSource('write');
    // byte for byte the shipped text, but for the header's name
    expect(copy).toBe(shipped.replace(/^ {2}name: write$/m, '  name: write-notes'));
    const answer = (await (await api('GET', '/templates/write-notes')).json()) as { state: string; valid: boolean };
    expect(answer).toMatchObject({ state: 'custom', valid: true });
  });

  it('duplicates from the template page header too', async () => {
    await page.goto(`${served.base}/#/templates/research`);
    await page.getByRole('button', { name: 'Duplicate as new template' }).click();
    await page.getByRole('textbox', { name: 'Name of the copy of research' }).fill('research-two');
    await page.getByRole('button', { name: 'Create copy' }).click();
    await page.locator('.page-head h2 .badge[data-state="custom"]').waitFor();
    expect(readFileSync(copyPath('research-two'), 'utf8')).toContain('name: research-two');
  });

  it('filters by state chips and says so when nothing matches', async () => {
    await edit('batch');
    await openList();
    const all = await visibleRows('Templates');
    expect(all.length).toBeGreaterThan(2);

    await page.getByRole('group', { name: 'Show by state' }).getByRole('button', { name: /^edited/ }).click();
    expect(await visibleRows('Templates')).toEqual(['batch']);
    expect(await visibleRows('Roles')).toEqual([]);
    // the roles list says it is empty for this filter rather than showing nothing
    await page.locator('section[aria-labelledby="h-roles"] .empty:not([hidden])').waitFor();
    expect(await page.locator('section[aria-labelledby="h-templates"] .empty:not([hidden])').count()).toBe(0);
    expect(await page.getByRole('button', { name: /^edited/ }).getAttribute('aria-pressed')).toBe('true');

    // chip and text together: nothing matches, and Show all undoes both
    await page.getByRole('searchbox', { name: 'Filter templates and roles' }).fill('no-such-thing');
    await page.locator('section[aria-labelledby="h-templates"] .empty:not([hidden])').waitFor();
    await page.locator('section[aria-labelledby="h-templates"] .empty').getByRole('button', { name: 'Show all' }).click();
    expect(await visibleRows('Templates')).toEqual(all);
    expect(await page.getByRole('searchbox', { name: 'Filter templates and roles' }).inputValue()).toBe('');
    expect(await page.getByRole('button', { name: /^All/ }).getAttribute('aria-pressed')).toBe('true');

    // the chip is kept when the list is drawn again after a change elsewhere
    await page.getByRole('button', { name: /^edited/ }).click();
    await edit('research');
    await expect.poll(() => visibleRows('Templates')).toEqual(['batch', 'research']);
  });

  it('`outside` finds what was edited outside the service, and the row says it to assistive technology', async () => {
    await edit('batch');
    const s = readFileSync(copyPath('batch'), 'utf8');
    writeFileSync(copyPath('batch'), s.replace('version: 1', '# tuned by hand\nversion: 1'));
    await openList();
    await page.getByRole('searchbox', { name: 'Filter templates and roles' }).fill('outside');
    expect(await visibleRows('Templates')).toEqual(['batch']);
    await page.getByRole('link', { name: 'template batch, edited, edited outside', exact: true }).waitFor();
  });

  it('keeps role Save closed while the role is as loaded', async () => {
    await page.goto(`${served.base}/#/roles/worker`);
    const md = page.getByRole('textbox', { name: 'role.md of worker' });
    await md.waitFor();
    const save = page.getByRole('button', { name: 'Save role' });
    expect(await save.isDisabled()).toBe(true);
    await page.getByRole('checkbox', { name: 'web.fetch' }).check();
    expect(await save.isEnabled()).toBe(true);
    await page.getByRole('checkbox', { name: 'web.fetch' }).uncheck();
    expect(await save.isDisabled()).toBe(true);
    const text = await boxText(md);
    await setBoxText(md, `${text}\nOne more line.`);
    expect(await save.isEnabled()).toBe(true);
    await setBoxText(md, text);
    expect(await save.isDisabled()).toBe(true);
    expect(existsSync(join(served.root, 'roles', 'worker'))).toBe(false);

    // a real change saves, and the focus lands on the result, not on <body>
    await setBoxText(md, `${text}\nOne more line.`);
    await save.click();
    await page.locator('h2 .badge[data-state="edited"]').waitFor();
    expect(readFileSync(join(served.root, 'roles', 'worker', 'role.md'), 'utf8')).toContain('One more line.');
    await expect.poll(async () => (await focused()).cls).toContain('said');
    expect(await save.isDisabled()).toBe(true);
  });

  it('puts the focus on the heading of each view it opens, and on the result after a save or reset', async () => {
    await openList();
    // the library starts at the view itself: its first Tab is the filter, the first thing it shows
    expect(await focused()).toMatchObject({ tag: 'main' });
    await page.keyboard.press('Tab');
    expect(await focused()).toMatchObject({ tag: 'input', text: 'Filter templates and roles' });
    await page.getByRole('link', { name: 'template write, shipped', exact: true }).click();
    await page.locator('.page-head h2').waitFor();
    await expect.poll(async () => (await focused()).tag).toBe('h2');
    expect((await focused()).text).toContain('write');

    await page.goto(`${served.base}/#/roles/worker`);
    await page.locator('.role-page h2').waitFor();
    await expect.poll(async () => (await focused()).text).toContain('worker');

    // Save on a template: the button is drawn again (disabled), so the result takes the focus
    await page.goto(`${served.base}/#/templates/write`);
    const source = sourceBox(page, 'write');
    await source.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('# a note\n');
    const save = page.getByRole('button', { name: 'Save', exact: true });
    await expect.poll(() => save.isEnabled()).toBe(true);
    await save.click();
    await page.locator('.page-head h2 .badge[data-state="edited"]').waitFor();
    await expect.poll(async () => (await focused()).cls).toContain('said');

    // Reset on the template page: Cancel first, then the result has the focus
    await page.getByRole('button', { name: 'Reset to shipped' }).click();
    expect(await focused()).toMatchObject({ tag: 'button', text: 'Cancel' });
    await page.getByRole('group', { name: 'Confirm' }).getByRole('button', { name: 'Yes, reset' }).click();
    await page.locator('.page-head h2 .badge[data-state="shipped"]').waitFor();
    expect(existsSync(copyPath('write'))).toBe(false);
    await expect.poll(async () => (await focused()).cls).toContain('said');
  });

  it('refreshes the badge when a save meets 412, and Reload leaves the focus on the result', async () => {
    await edit('write');
    await page.goto(`${served.base}/#/templates/write`);
    await page.locator('.page-head h2 .badge[data-state="edited"]').waitFor();
    const source = sourceBox(page, 'write');
    await source.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('# mine\n');
    // another window resets it meanwhile
    const etag = (await api('GET', '/templates/write')).headers.get('etag')!;
    expect((await api('POST', '/settings/template-reset', { name: 'write' }, { 'if-match': etag })).status).toBe(200);
    const save = page.getByRole('button', { name: 'Save', exact: true });
    await expect.poll(() => save.isEnabled()).toBe(true);
    await save.click();
    await page.getByRole('alert').first().waitFor();
    await expect.poll(() => page.locator('.page-head h2 .badge').getAttribute('data-state')).toBe('shipped');
    expect(existsSync(copyPath('write'))).toBe(false);
    // Reload takes the conflict box (and its focused button) away: the focus goes to the result
    await page.getByRole('button', { name: 'Reload the saved version' }).click();
    await page.getByRole('group', { name: 'Confirm reload' }).getByRole('button', { name: 'Yes, reload' }).click();
    await expect.poll(async () => (await focused()).cls).toContain('said');
  });

  it('New template: a pattern the browser compiles, and a bad name answered beside the field', async () => {
    await page.goto(`${served.base}/#/new`);
    const name = page.getByRole('textbox', { name: 'Name' });
    await name.waitFor();
    await expect.poll(async () => (await focused()).tag).toBe('input');
    // the pattern is in force (the browser judges it; an invalid pattern is ignored and logs an error)
    await name.fill('Bad_Name');
    expect(await name.evaluate((el) => (el as unknown as { validity: { patternMismatch: boolean } }).validity.patternMismatch)).toBe(true);
    await name.fill('good-name');
    expect(await name.evaluate((el) => (el as unknown as { validity: { patternMismatch: boolean } }).validity.patternMismatch)).toBe(false);

    await name.fill('Bad_Name');
    await page.getByRole('textbox', { name: 'Purpose' }).fill('Anything');
    await page.getByRole('button', { name: 'Create' }).click();
    expect(await name.getAttribute('aria-invalid')).toBe('true');
    const message = await page.locator('#new-name-msg').textContent();
    expect(message?.length).toBeGreaterThan(0);
    expect(await focused()).toMatchObject({ tag: 'input' });
    expect(existsSync(join(served.root, 'templates'))).toBe(false);
    expect(consoleErrors.filter((e) => /pattern/i.test(e))).toEqual([]);
    // nothing else the page logs as an error either (a refused request is another view's business)
    expect(consoleErrors.filter((e) => !e.startsWith('Failed to load resource'))).toEqual([]);
  });
});
