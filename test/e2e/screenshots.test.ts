/**
 * Writes docs/screenshots/*.png from the running page. Not a test of
 * behaviour: it runs only with UPDATE_SCREENSHOTS=1
 * (`UPDATE_SCREENSHOTS=1 npx vitest run test/e2e/screenshots.test.ts`).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/paths.js';
import { editorText, setEditorText } from './editor-page.js';
import { browserMissing, buildWeb, launch, serve, watchCsp } from './harness.js';

const wanted = process.env.UPDATE_SCREENSHOTS === '1';

describe.skipIf(!wanted || browserMissing() !== null)('screenshots', () => {
  it('writes the library, a card and the editor', async () => {
    buildWeb();
    const served = await serve();
    const browser = await launch();
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const refused: string[] = [];
      watchCsp(page, refused);
      const out = (name: string) => join(packageRoot, 'docs', 'screenshots', name);
      const api = (method: string, path: string, body?: unknown) =>
        fetch(`${served.base}/api/desk${path}`, {
          method,
          headers: { origin: served.base, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });

      await page.goto(`${served.base}/#/templates/quick-fix/card`);
      await page.locator('svg.graph').first().waitFor();
      await page.screenshot({ path: out('template.png'), fullPage: true });

      // A library with a few states to show the badges.
      const get = async (name: string) => ((await (await fetch(`${served.base}/api/desk/templates/${name}`)).json()) as { source: string }).source;
      const qf = await get('quick-fix');
      expect((await api('PUT', '/templates/quick-fix', { source: qf.replace(/purpose: .*/, 'purpose: One small ticket, one worker, checks and your approval') })).status).toBe(200);
      expect((await api('PUT', '/templates/research', { source: await get('research') })).status).toBe(200);
      const batch = await get('batch');
      expect((await api('PUT', '/templates/batch', { source: batch })).status).toBe(200);
      writeFileSync(join(served.root, 'templates', 'batch.yaml'), batch.replace('version: 1', '# tuned by hand\nversion: 1'));
      await page.goto(`${served.base}/#/new`);
      await page.getByLabel('Name').fill('release-notes');
      await page.getByLabel('Purpose').fill('Draft the release notes from a brief and keep them once approved');
      await page.getByRole('button', { name: 'Create' }).click();
      await page.locator('.page-head h2 .badge[data-state="custom"]').waitFor();

      await page.goto(`${served.base}/#/`);
      await page.getByRole('link', { name: 'template release-notes, custom' }).waitFor();
      // the row menu of the edited copy, open on its actions
      await page.getByRole('button', { name: 'Actions for template quick-fix', exact: true }).click();
      await page.mouse.move(0, 0);
      await page.screenshot({ path: out('library.png'), fullPage: true });

      await page.goto(`${served.base}/#/templates/quick-fix`);
      const src = page.getByRole('textbox', { name: 'Source of quick-fix' });
      await page.locator('.page-head h2 .badge').waitFor();
      // one edit through the CodeMirror view (editor-page.ts says where it is found): two problems to show
      await src.waitFor();
      const text = (await editorText(page, 'quick-fix'))
        .replace('profile: workspace_write', 'profile: everything')
        .replace('  checks: { type: builtin, builtin: checks }', '  checks: { type: builtin, builtin: check }');
      await setEditorText(page, 'quick-fix', text);
      await page.locator('li[data-code="model.profile_unknown"]').getByRole('button').click();
      await page.screenshot({ path: out('editor.png') });
      expect(refused).toEqual([]);
    } finally {
      await browser.close();
      await served.close();
    }
  });
});
