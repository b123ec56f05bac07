/**
 * The MCP card app in a real browser (docs/conductor.md, The card in the
 * conversation): a test page hosts `ui://desk-library/template-card`, as
 * the desk answers it, in a sandboxed iframe through ext-apps' own host side
 * (AppBridge over its PostMessageTransport), and hands it a real
 * propose_template result. The card shows the node ids and a problem's
 * message, logs no error, and axe finds nothing.
 */
import { AxeBuilder } from '@axe-core/playwright';
import axeCore from 'axe-core';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { build } from 'esbuild';
import type { ConsoleMessage, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CARD_URI } from '../../src/mcp/tool.js';
import { packageRoot } from '../../src/paths.js';
import { runSync } from '../children.js';
import { type Desk, openDesk } from '../mcp-fixture.js';
import { browserMissing, useBrowser } from './harness.js';

const missing = browserMissing();

/** The host page's script: an AppBridge with no server behind it, the app's frame, and a way to hand it a result. */
const HOST = `
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
window.showResult = async (html, args, result) => {
  const iframe = document.createElement('iframe');
  iframe.title = 'Template card';
  iframe.setAttribute('sandbox', 'allow-scripts');
  iframe.style.cssText = 'width: 100%; height: 1200px; border: 0';
  document.querySelector('main').append(iframe);
  const bridge = new AppBridge(null, { name: 'desk-test-host', version: '1.0.0' }, { openLinks: {}, logging: {} });
  const initialized = new Promise((resolve) => { bridge.oninitialized = resolve; });
  // listening before the document loads: the app asks to initialize as soon as its script runs
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  iframe.srcdoc = html;
  await initialized;
  await bridge.sendToolInput({ arguments: args });
  await bridge.sendToolResult(result);
};
`;

const BROKEN = `template:
  name: card-test
  purpose: a worker on a profile no one defined
  entry: work
  inlet: start
version: 1
nodes:
  work: { type: model, role: worker, profile: no_such_profile, prompt: "Fix it." }
  gate: { type: builtin, builtin: human_gate }
cords:
  - { from: work.done, to: gate.in }
`;

describe.skipIf(missing !== null)('the MCP card app (e2e)', () => {
  const t = useBrowser();
  let desk: Desk;
  let carl: Client;
  let hostScript = '';
  beforeAll(async () => {
    const r = runSync(process.execPath, ['scripts/build-card-app.mjs'], { cwd: packageRoot, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`card app build failed:\n${r.stdout}${r.stderr}`);
    const out = await build({ stdin: { contents: HOST, resolveDir: packageRoot, loader: 'js' }, bundle: true, format: 'esm', platform: 'browser', write: false, logLevel: 'error' });
    hostScript = out.outputFiles[0]!.text.replace(/<\/script/gi, '<\\/script');
    desk = await openDesk();
    carl = await desk.client('carl');
  });
  afterAll(async () => desk?.close());

  async function host(page: Page): Promise<{ errors: string[] }> {
    const errors: string[] = [];
    page.on('console', (m: ConsoleMessage) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    await page.setContent(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test host</title></head><body><main><h1>A conversation</h1></main><script type="module">${hostScript}</script></body></html>`);
    await page.waitForFunction("typeof window.showResult === 'function'");
    return { errors };
  }

  it('shows the node ids and a problem of a propose_template result; no console error; axe clean', async () => {
    const args = { name: 'card-test', purpose: 'a card in the conversation', source: BROKEN };
    const result = await carl.callTool({ name: 'propose_template', arguments: args });
    expect(result.isError ?? false).toBe(false);
    const problem = (result.structuredContent as { problems: { code: string; message: string }[] }).problems.find((p) => p.code.startsWith('model.'))!;
    expect(problem).toBeDefined();
    const html = ((await carl.readResource({ uri: CARD_URI })).contents[0] as { text: string }).text;

    const page = await t.page({ viewport: { width: 1000, height: 1400 } });
    const { errors } = await host(page);
    await page.evaluate(([h, a, r]) => (globalThis as unknown as { showResult(...x: unknown[]): Promise<void> }).showResult(h, a, r), [html, args, result] as const);

    const card = page.frameLocator('iframe[title="Template card"]');
    await expect.poll(() => card.locator('tr[data-node]').allTextContents()).toHaveLength(2);
    const ids = await card.locator('tr[data-node] th code').allTextContents();
    expect(ids).toEqual(['work', 'gate']);
    await expect.poll(() => card.locator('ul.problems').textContent()).toContain(problem.message);
    await expect.poll(() => card.locator('h1').textContent()).toBe('Proposal: card-test');
    expect(errors).toEqual([]);

    const axe = await new AxeBuilder({ page }).setLegacyMode(true).analyze();
    expect(axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
    // and inside the card itself: a sandboxed frame of another origin, which the page's run does not enter
    const frame = page.frames().find((f) => f !== page.mainFrame())!;
    await frame.evaluate(axeCore.source);
    // a script string: the tests' TypeScript has no DOM
    const inCard = (await frame.evaluate(
      "axe.run(document).then((r) => ({ violations: r.violations.map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')), passes: r.passes.length }))",
    )) as { violations: string[]; passes: number };
    expect(inCard.violations).toEqual([]);
    expect(inCard.passes).toBeGreaterThan(10);
  });

  it('shows a draft_launch result as its runs, one per ticket, each node with what it can touch', async () => {
    const args = { template: 'quick-fix', inputs: { tickets: ['DESK-1', 'DESK-2', 'DESK-3'] } };
    const result = await carl.callTool({ name: 'draft_launch', arguments: args });
    expect(result.isError ?? false).toBe(false);
    const html = ((await carl.readResource({ uri: CARD_URI })).contents[0] as { text: string }).text;
    const page = await t.page({ viewport: { width: 1000, height: 1400 } });
    const { errors } = await host(page);
    await page.evaluate(([h, a, r]) => (globalThis as unknown as { showResult(...x: unknown[]): Promise<void> }).showResult(h, a, r), [html, args, result] as const);
    const card = page.frameLocator('iframe[title="Template card"]');
    await expect.poll(() => card.locator('section h3').allTextContents()).toEqual(['Run 1', 'Run 2', 'Run 3']);
    const nodes = (result.structuredContent as { preview: { runs: { nodes: { id: string; touches: string[] }[] }[] } }).preview.runs[0]!.nodes;
    expect(await card.locator('section').first().locator('tr[data-node] th code').allTextContents()).toEqual(nodes.map((n) => n.id));
    const work = nodes.find((n) => n.id === 'work')!;
    expect(await card.locator('section').first().locator('tr[data-node="work"] .chip').allTextContents()).toEqual(work.touches);
    expect(errors).toEqual([]);
  });
});
