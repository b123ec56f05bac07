/**
 * The launch preview reads as what would run: prompts wrap at any width
 * (the page never grows sideways), blank lines left out and an item listed
 * twice are said, and a node with a `when:` condition is marked with it.
 */
import { describe, expect, it } from 'vitest';
import { browserMissing, serve, useBrowser } from './harness.js';

const missing = browserMissing();
if (missing) console.warn(missing);

describe.skipIf(missing !== null)('launch preview, as read (e2e)', () => {
  const t = useBrowser();

  it('a long prompt wraps at 1,280 px; blank lines and a duplicate ticket are warnings', async () => {
    const served = t.defer(await serve());
    const page = await t.page({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${served.base}/#/templates/quick-fix/launch`);
    // one ticket with no break in it, wider than any window, a blank line, and a ticket twice
    await page.getByLabel(/^tickets/).fill(`DESK-1\n\n${'X'.repeat(600)}\nDESK-1`);
    await page.getByRole('button', { name: 'Preview' }).click();
    await expect.poll(() => page.locator('.launch-run').count()).toBeGreaterThan(0);
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(1280);
    const warnings = page.getByRole('list', { name: 'Warnings about the inputs' });
    expect(await warnings.locator('li[data-code="list.blank_lines"][data-input="tickets"]').count()).toBe(1);
    expect(await warnings.locator('li[data-code="list.duplicate"][data-input="tickets"]').textContent()).toContain('DESK-1');
  });

  it('a node with a when: condition is marked with it', async () => {
    const served = t.defer(await serve());
    const page = await t.page();
    await page.goto(`${served.base}/#/templates/research/launch`);
    await page.getByLabel(/^question/).fill('Why is the sky blue?');
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.locator('.launch-run').first().waitFor();
    const marked = page.locator('.launch-run').first().locator('li[data-may-not-run="true"]');
    expect(await marked.count()).toBeGreaterThan(0);
    expect(await marked.first().locator('.may-not-run').textContent()).toMatch(/on PATH/);
    // a node with no condition is not marked
    expect(await page.locator('.launch-run').first().locator('li:not([data-may-not-run])').count()).toBeGreaterThan(0);

    // an optional boolean is three-state: left unset it is not sent at all (a checkbox always sent true or false)
    const research = (await (await fetch(`${served.base}/api/desk/templates/research`)).json()) as { source: string };
    const deep = research.source
      .replace(/^ {2}name: research$/m, '  name: deep-research')
      .replace('    - name: sources\n', '    - name: thorough\n      type: boolean\n      description: check twice\n    - name: sources\n');
    const put = await fetch(`${served.base}/api/desk/templates/deep-research`, { method: 'PUT', headers: { origin: served.base, 'content-type': 'application/json', 'if-none-match': '*' }, body: JSON.stringify({ source: deep }) });
    expect(put.status).toBe(200);
    await page.goto(`${served.base}/#/templates/deep-research/launch`);
    await page.getByLabel(/^question/).fill('Why?');
    const thorough = page.getByLabel(/^thorough/);
    expect(await thorough.inputValue()).toBe('');
    const sent: unknown[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/launch-preview')) sent.push(r.postDataJSON());
    });
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.locator('.launch-run').first().waitFor();
    await thorough.selectOption('false');
    await page.getByRole('button', { name: 'Preview' }).click();
    await expect.poll(() => sent.length).toBe(2);
    expect((sent[0] as { inputs: Record<string, unknown> }).inputs).not.toHaveProperty('thorough');
    expect((sent[1] as { inputs: Record<string, unknown> }).inputs.thorough).toBe(false);
  });
});
