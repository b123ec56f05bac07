/**
 * axe-core (through @axe-core/playwright) on every view of the settings page:
 * the library (with a row menu and a confirmation open), one template's
 * source, card, diff, launch preview and history, a role, the proposals, and the New
 * template form with a bad name. Each view must have zero violations of
 * axe's default rules (WCAG A/AA and best practices, heading order among
 * them). A failure lists each rule with the selectors it names.
 */
import { AxeBuilder } from '@axe-core/playwright';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserMissing, callApi, type Served, usePage } from './harness.js';
import { headerLines, NARROW, tooWide } from './narrow.js';

const missing = browserMissing();
if (missing) console.warn(missing);

/** rule id → the first few selectors it flags: short enough to read in a failure */
async function violations(page: Page): Promise<Record<string, string[]>> {
  // legacy mode runs axe in the page itself; the default opens a helper page, which needs a browser context the shared harness does not make (the page has no frames)
  const result = await new AxeBuilder({ page }).setLegacyMode(true).analyze();
  return Object.fromEntries(result.violations.map((v) => [`${v.id} (${v.impact})`, v.nodes.slice(0, 5).map((n) => n.target.join(' '))]));
}

/**
 * What is wrong with the card's drawn graph, '' when nothing: the whole graph fits its frame, the terminal
 * node's box is inside the frame's visible part and no farther right than the column after the others
 * (in the flow, not off past them), and no two cord labels' boxes intersect, nor a label a node's box or
 * the drawing's edge.
 */
function graphFaults(page: Page): Promise<string> {
  return page.evaluate<string>(`(() => {
    const wrap = document.querySelector('.graph-wrap');
    const svg = wrap.querySelector('svg.graph');
    const out = [];
    if (svg.getBoundingClientRect().width > wrap.clientWidth) out.push('graph ' + Math.round(svg.getBoundingClientRect().width) + ' px wide in a ' + wrap.clientWidth + ' px frame');
    const nodes = [...svg.querySelectorAll('g.node')].map((g) => ({ id: g.dataset.node, terminal: g.querySelector('.flag')?.textContent === 'terminal', r: g.querySelector('rect').getBoundingClientRect() }));
    const terminal = nodes.find((n) => n.terminal);
    const others = nodes.filter((n) => !n.terminal);
    if (terminal && others.length) {
      const left = Math.min(...others.map((n) => n.r.left));
      const right = Math.max(...others.map((n) => n.r.right));
      const frame = wrap.getBoundingClientRect();
      // one column gap (60 px) at most between the others' rightmost box and the terminal
      if (terminal.r.left < left - 0.5 || terminal.r.left > right + 61) out.push('terminal ' + terminal.id + ' off to the right of the others');
      if (terminal.r.left < frame.left || terminal.r.right > frame.right) out.push('terminal ' + terminal.id + ' outside the visible frame');
    }
    const labels = [...svg.querySelectorAll('text.port')].map((t) => ({ text: t.textContent + ' (' + t.closest('g').querySelector('title').textContent + ')', r: t.getBoundingClientRect() }));
    const meet = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
    const drawn = svg.getBoundingClientRect();
    for (const l of labels) if (l.r.left < drawn.left || l.r.right > drawn.right) out.push('label ' + l.text + ' cut by the edge');
    for (let i = 0; i < labels.length; i++) {
      for (let j = i + 1; j < labels.length; j++) if (meet(labels[i].r, labels[j].r)) out.push('labels ' + labels[i].text + ' and ' + labels[j].text + ' meet');
      for (const n of nodes) if (meet(labels[i].r, n.r)) out.push('label ' + labels[i].text + ' on node ' + n.id);
    }
    return out.join('; ');
  })()`);
}

describe.skipIf(missing !== null)('accessibility: axe on every view (e2e)', () => {
  let served: Served;
  let page: Page;
  usePage((s, p) => {
    served = s;
    page = p;
  });

  const api = (method: string, path: string, body?: unknown) => callApi(served.base, method, path, body);
  const source = async (name: string) => ((await (await api('GET', `/templates/${name}`)).json()) as { source: string }).source;

  /** a library with more than one state, a hand edit, an invalid template and a custom one */
  async function variedLibrary(): Promise<void> {
    expect((await api('PUT', '/templates/quick-fix', { source: `${await source('quick-fix')}# edited\n` })).status).toBe(200);
    expect((await api('PUT', '/templates/research', { source: await source('research') })).status).toBe(200);
    const batch = await source('batch');
    expect((await api('PUT', '/templates/batch', { source: batch })).status).toBe(200);
    writeFileSync(join(served.root, 'templates', 'batch.yaml'), batch.replace('version: 1', '# tuned by hand\nversion: 1'));
    writeFileSync(join(served.root, 'templates', 'broken.yaml'), 'template:\n  name: broken\n  purpose: half written\nversion: 1\nnodes: {}\n');
  }

  it('the library, with a row menu and a confirmation open', async () => {
    await variedLibrary();
    await page.goto(`${served.base}/#/`);
    await page.getByRole('link', { name: 'template batch, edited, edited outside', exact: true }).waitFor();
    expect(await violations(page)).toEqual({});

    await page.getByRole('button', { name: 'Actions for template quick-fix', exact: true }).click();
    await page.getByRole('button', { name: 'Reset to shipped' }).click();
    await page.getByRole('group', { name: 'Confirm' }).waitFor();
    expect(await violations(page)).toEqual({});

    await page.getByRole('button', { name: /^same as shipped/ }).click();
    await page.getByRole('searchbox', { name: 'Filter templates and roles' }).fill('nothing-matches');
    await page.locator('.empty:not([hidden])').first().waitFor();
    expect(await violations(page)).toEqual({});
  });

  it('a template: source, card, diff, launch preview and history', async () => {
    await variedLibrary();
    await page.goto(`${served.base}/#/templates/quick-fix`);
    await page.getByRole('textbox', { name: 'Source of quick-fix' }).waitFor();
    await page.locator('.problem-summary').waitFor();
    expect(await violations(page), 'source').toEqual({});

    await page.goto(`${served.base}/#/templates/quick-fix/card`);
    await page.locator('svg.graph').first().waitFor();
    expect(await violations(page), 'card').toEqual({});

    await page.goto(`${served.base}/#/templates/quick-fix/diff`);
    await page.locator('#panel-diff .diff-out').getByText('Loading…').waitFor({ state: 'detached' });
    expect(await violations(page), 'diff').toEqual({});

    // every shipped template's graph at 1280 px: all of it in its frame, the terminal in the flow, no label over another
    await page.setViewportSize({ width: 1280, height: 900 });
    const listed = ((await (await api('GET', '/templates')).json()) as { templates: { name: string; shipped: boolean }[] }).templates;
    const shipped = listed.filter((t) => t.shipped).map((t) => t.name);
    expect(shipped.length).toBeGreaterThan(5);
    for (const name of shipped) {
      await page.goto(`${served.base}/#/templates/${name}/card`);
      await page.locator('.graph-wrap svg.graph').waitFor();
      expect(await graphFaults(page), name).toBe('');
    }

    await page.goto(`${served.base}/#/templates/quick-fix/launch`);
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.locator('.launch-result').waitFor();
    expect(await violations(page), 'launch preview').toEqual({});

    await page.goto(`${served.base}/#/templates/quick-fix/history`);
    await page.locator('#panel-history li').first().waitFor();
    expect(await violations(page), 'history').toEqual({});

    await page.goto(`${served.base}/#/templates/broken`);
    await page.locator('.page-head h2 .badge').waitFor();
    await page.locator('.problem-summary').waitFor();
    expect(await violations(page), 'an invalid template').toEqual({});
  });

  it('a role', async () => {
    await page.goto(`${served.base}/#/roles/worker`);
    await page.getByRole('textbox', { name: 'role.md of worker' }).waitFor();
    expect(await violations(page)).toEqual({});
  });

  it('a role with a kit problem, and the leave question', async () => {
    await page.goto(`${served.base}/#/roles/worker`);
    const kit = page.getByRole('textbox', { name: 'kit.json of worker' });
    await kit.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type(' x');
    await page.locator('ul[aria-label="Problems in kit.json"] > li').first().waitFor();
    expect(await violations(page), 'kit problems').toEqual({});
    await page.locator('.crumbs').getByRole('link', { name: 'Library' }).click();
    await page.getByRole('dialog', { name: /Leave this page/ }).waitFor();
    expect(await violations(page), 'the leave question').toEqual({});
  });

  it('a conflict met by a save, and its three-way merge', async () => {
    await page.goto(`${served.base}/#/templates/write`);
    await page.getByRole('textbox', { name: 'Source of write' }).waitFor();
    const shipped = await source('write');
    await page.getByRole('textbox', { name: 'Source of write' }).click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('# mine\n');
    expect((await api('PUT', '/templates/write', { source: `# theirs\n${shipped}` })).status).toBe(200);
    const save = page.getByRole('button', { name: 'Save', exact: true });
    await expect.poll(() => save.isEnabled()).toBe(true);
    await save.click();
    const box = page.getByRole('alert').filter({ hasText: 'changed elsewhere' });
    await box.waitFor();
    expect(await violations(page), 'the conflict').toEqual({});
    await box.getByRole('button', { name: 'Merge with the saved version' }).click();
    await page.getByRole('region', { name: 'Merge with the saved version' }).locator('.merge-status').filter({ hasText: /valid/ }).waitFor();
    expect(await violations(page), 'the merge').toEqual({});
    // and on a phone-sized window: nothing wider than it, nothing axe finds
    await page.setViewportSize(NARROW);
    expect(await tooWide(page), 'the merge at 390 px').toBe('');
    expect(await violations(page), 'the merge at 390 px').toEqual({});
  });

  it('the proposals, one waiting and one decided', async () => {
    const qf = await source('quick-fix');
    const mine = (name: string) => qf.replace(/^ {2}name: quick-fix$/m, `  name: ${name}`).replace(/^ {2}base: .*$/m, '  base: quick-fix');
    for (const name of ['my-fix', 'other-fix']) {
      expect((await api('POST', '/proposals', { name, purpose: `${name} for the flaky test`, source: mine(name), from: 'conductor' })).status).toBe(201);
    }
    const list = (await (await api('GET', '/proposals?status=pending')).json()) as { proposals: { id: string; name: string }[] };
    const other = list.proposals.find((p) => p.name === 'other-fix')!;
    expect((await api('POST', `/proposals/${other.id}/dismiss`, { note: 'not now' })).status).toBe(200);

    await page.goto(`${served.base}/#/proposals`);
    await page.locator('article.proposal').first().waitFor();
    expect(await violations(page)).toEqual({});
  });

  it('every view at 390 px: nothing wider than the window, the header in two lines, axe clean', async () => {
    await variedLibrary();
    const qf = await source('quick-fix');
    expect((await api('POST', '/proposals', { name: 'narrow-fix', purpose: 'a fix with a rather long purpose that has to wrap on a phone', source: qf.replace(/^ {2}name: quick-fix$/m, '  name: narrow-fix'), from: 'conductor' })).status).toBe(201);
    expect((await api('POST', '/launches', { template: 'quick-fix', inputs: { tickets: ['DESK-1'] } })).status).toBe(201);
    await page.setViewportSize(NARROW);
    const views: [string, string, () => Promise<unknown>][] = [
      ['the library', '#/', () => page.getByRole('link', { name: 'template batch, edited, edited outside', exact: true }).waitFor()],
      ['a template', '#/templates/quick-fix', () => page.locator('.problem-summary').waitFor()],
      ['its card', '#/templates/quick-fix/card', () => page.locator('svg.graph').first().waitFor()],
      ['its diff', '#/templates/quick-fix/diff', () => page.locator('#panel-diff .diff-out').getByText('Loading…').waitFor({ state: 'detached' })],
      ['its launch preview', '#/templates/quick-fix/launch', async () => {
        await page.getByRole('button', { name: 'Preview' }).click();
        await page.locator('.launch-result').waitFor();
      }],
      ['its history', '#/templates/quick-fix/history', () => page.locator('#panel-history li').first().waitFor()],
      ['an invalid template', '#/templates/broken', () => page.locator('.problem-summary').waitFor()],
      ['a new template', '#/new', () => page.getByRole('textbox', { name: 'Name' }).waitFor()],
      ['a role', '#/roles/worker', () => page.getByRole('textbox', { name: 'role.md of worker' }).waitFor()],
      ['the proposals', '#/proposals', () => page.locator('article.proposal').first().waitFor()],
      ['the launches', '#/launches', () => page.locator('article.launch-draft').first().waitFor()],
      ['the upgrade', '#/upgrade', () => page.locator('.upgrade').first().waitFor()],
    ];
    for (const [what, hash, ready] of views) {
      await page.goto(`${served.base}/${hash}`);
      await ready();
      expect(await tooWide(page), what).toBe('');
      expect(await headerLines(page), what).toBeLessThanOrEqual(2);
      expect(await violations(page), what).toEqual({});
    }
  });

  it('the New template form, also with a bad name answered', async () => {
    await page.goto(`${served.base}/#/new`);
    const name = page.getByRole('textbox', { name: 'Name' });
    await name.waitFor();
    expect(await violations(page)).toEqual({});
    await name.fill('Bad Name');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.locator('#new-name-msg:not(:empty)').waitFor();
    expect(await violations(page)).toEqual({});
  });
});
