/**
 * The desk as an MCP server (docs/conductor.md), through the SDK's own
 * Client over Streamable HTTP against a listening app: the tools and their
 * schemas, the loop (propose → the operator saves → await_decision; draft →
 * the operator dismisses → await_decision), refused calls that keep
 * nothing, who a record names, and the guards every route has.
 */
import { request } from 'node:http';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CARD_URI } from '../src/mcp/tool.js';
import { INITIALIZE, MCP, openDesk, post, type Desk } from './mcp-fixture.js';
import { TOKENS } from './users-fixture.js';

const TOOLS = ['list_templates', 'get_template', 'validate_template', 'propose_template', 'draft_launch', 'await_decision', 'withdraw_launch'];

const FIX = (name: string) => `template:
  name: ${name}
  purpose: one worker, then a person looks
  entry: work
  inlet: start
version: 1
nodes:
  work: { type: model, role: worker, profile: read_only, prompt: "Fix it." }
  gate: { type: builtin, builtin: human_gate }
cords:
  - { from: work.done, to: gate.in }
`;

interface Refusal {
  code: string;
  problems: { code: string; path: string; message: string }[];
}

type CallResult = Awaited<ReturnType<Client['callTool']>>;
const refusalOf = (r: CallResult): Refusal => {
  expect(r.isError).toBe(true);
  expect(r.structuredContent).toBeUndefined();
  return JSON.parse((r.content as { text: string }[])[0]!.text) as Refusal;
};
const structured = <T = Record<string, unknown>>(r: CallResult): T => {
  expect(r.isError ?? false, JSON.stringify(r.content)).toBe(false);
  return r.structuredContent as T;
};

let desk: Desk;
let carl: Client;
beforeAll(async () => {
  desk = await openDesk();
  carl = await desk.client('carl');
});
afterAll(async () => desk?.close());

const countOf = async (kind: 'proposals' | 'launches') => ((await (await desk.api('GET', `/${kind}?status=all`, 'ann')).json()) as Record<string, unknown[]>)[kind]!.length;

describe('tools/list', () => {
  test('the seven tools, none that saves or decides, with their hints and the card app on three', async () => {
    const { tools } = await carl.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOLS].sort());
    for (const t of tools) expect(t.name).not.toMatch(/save|reset|delete|restore|approve|dismiss/);
    const by = Object.fromEntries(tools.map((t) => [t.name, t]));
    for (const n of ['list_templates', 'get_template', 'validate_template', 'await_decision']) expect(by[n]!.annotations, n).toMatchObject({ readOnlyHint: true, openWorldHint: false });
    for (const n of ['propose_template', 'draft_launch']) expect(by[n]!.annotations, n).toMatchObject({ readOnlyHint: false, destructiveHint: false, openWorldHint: false });
    expect(by.withdraw_launch!.annotations).toMatchObject({ destructiveHint: true, idempotentHint: true, openWorldHint: false });
    for (const t of tools) {
      const ui = (t._meta as { ui?: { resourceUri?: string } } | undefined)?.ui?.resourceUri;
      expect(ui, t.name).toBe(['propose_template', 'get_template', 'draft_launch'].includes(t.name) ? CARD_URI : undefined);
    }
  });

  test("every schema is self-contained: no $ref, no $id, and the SDK's Ajv compiles each", async () => {
    const { tools } = await carl.listTools();
    const ajv = new AjvJsonSchemaValidator();
    for (const t of tools) {
      for (const s of [t.inputSchema, t.outputSchema!]) {
        expect(s.type, t.name).toBe('object');
        expect(JSON.stringify(s), t.name).not.toMatch(/"\$(ref|id)"/);
        expect(() => ajv.getValidator(s as never), t.name).not.toThrow();
      }
    }
  });
});

describe('the reads', () => {
  test('get_template answers what GET /templates/:name does, with its ETag; its text carries the card', async () => {
    const call = await carl.callTool({ name: 'get_template', arguments: { name: 'quick-fix' } });
    const r = structured<{ card: { nodes: { id: string; profile: string | null; touches: string[] }[] } }>(call);
    const http = await desk.api('GET', '/templates/quick-fix', 'carl');
    expect(r).toEqual({ ...((await http.json()) as object), etag: http.headers.get('etag') });
    // a host that shows only text gets the card's facts: every node with its profile and what it can touch, and the diff
    const text = (call.content as { text: string }[])[0]!.text;
    for (const n of r.card.nodes) {
      expect(text).toContain(`- ${n.id} (`);
      if (n.profile) expect(text).toMatch(new RegExp(`- ${n.id} \\(.*profile ${n.profile}\\) can touch ${n.touches.join(', ') || 'none'}`));
    }
    expect(text).toContain('against ticket-completion (base)');
  });

  test('list_templates pages by name and shows each input draft_launch takes', async () => {
    const first = structured<{ templates: { name: string; inputs: { name: string; type: string; required: boolean }[] }[]; next_cursor: string | null }>(
      await carl.callTool({ name: 'list_templates', arguments: { limit: 2 } }),
    );
    expect(first.templates).toHaveLength(2);
    expect(first.next_cursor).toBe(first.templates[1]!.name);
    const rest = structured<typeof first>(await carl.callTool({ name: 'list_templates', arguments: { cursor: first.next_cursor } }));
    const all = [...first.templates, ...rest.templates].map((t) => t.name);
    expect(rest.next_cursor).toBeNull();
    const listed = ((await (await desk.api('GET', '/templates', 'carl')).json()) as { templates: { name: string }[] }).templates.map((t) => t.name);
    expect(all).toEqual(listed);
    const quick = [...first.templates, ...rest.templates].find((t) => t.name === 'quick-fix')!;
    expect(quick.inputs).toContainEqual(expect.objectContaining({ name: 'tickets', type: 'list', required: true }));
    expect(refusalOf(await carl.callTool({ name: 'list_templates', arguments: { limit: 201 } })).problems[0]).toMatchObject({ code: 'bad_request', path: '/limit' });
  });

  test('validate_template judges a text as the save does', async () => {
    const broken = FIX('mine').replace('profile: read_only', 'profile: no_such_profile');
    const v = structured<{ valid: boolean; problems: { code: string }[] }>(await carl.callTool({ name: 'validate_template', arguments: { source: broken, name: 'mine' } }));
    const save = await desk.api('PUT', '/templates/mine', 'ann', { source: broken });
    expect(save.status).toBe(422);
    expect(v.valid).toBe(false);
    expect(v.problems).toEqual(((await save.json()) as { problems: unknown[] }).problems);
    const fine = structured<{ valid: boolean; problems: { severity: string }[] }>(await carl.callTool({ name: 'validate_template', arguments: { source: FIX('mine') } }));
    expect(fine.valid).toBe(true);
    expect(fine.problems.filter((p) => p.severity === 'error')).toEqual([]);
  });

  test('the card app and the templates are resources', async () => {
    const card = await carl.readResource({ uri: CARD_URI });
    const c = card.contents[0] as { mimeType: string; text: string };
    expect(c.mimeType).toBe(RESOURCE_MIME_TYPE);
    expect(c.text).toMatch(/^<!doctype html>/i);
    // one document: nothing loaded from anywhere else
    expect(c.text).not.toMatch(/<script[^>]+src=|<link[^>]+href=/i);
    const { resourceTemplates } = await carl.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['desk://templates/{name}']);
    const yaml = await carl.readResource({ uri: 'desk://templates/quick-fix' });
    const source = ((await (await desk.api('GET', '/templates/quick-fix', 'carl')).json()) as { source: string }).source;
    expect(yaml.contents[0]).toMatchObject({ uri: 'desk://templates/quick-fix', mimeType: 'application/yaml', text: source });
    await expect(carl.readResource({ uri: 'desk://templates/no-such' })).rejects.toMatchObject({ code: -32002 });
  });
});

describe('the loop', () => {
  test('propose → the operator saves over HTTP → await_decision says saved, with saved_as; the proposal names the conductor', async () => {
    const p = structured<{ id: string; status: string; from: string; valid: boolean; card: { nodes: { id: string }[] } }>(
      await carl.callTool({ name: 'propose_template', arguments: { name: 'mcp-fix', purpose: 'fix it with one worker', source: FIX('mcp-fix') } }),
    );
    expect(p).toMatchObject({ status: 'pending', from: 'carl', valid: true });
    expect(p.card.nodes.map((n) => n.id)).toEqual(['work', 'gate']);
    // as the proposal routes keep it
    expect(p).toEqual(await (await desk.api('GET', `/proposals/${p.id}`, 'ann')).json());

    const waiting = structured<{ status: string }>(await carl.callTool({ name: 'await_decision', arguments: { id: p.id, wait_s: 0 } }));
    expect(waiting.status).toBe('pending');
    const decided = carl.callTool({ name: 'await_decision', arguments: { id: p.id, wait_s: 30 } });
    const save = await desk.api('POST', `/proposals/${p.id}/save`, 'ann', { name: 'mcp-fix-saved' });
    expect(save.status).toBe(200);
    expect(structured(await decided)).toMatchObject({ kind: 'proposal', id: p.id, status: 'saved', saved_as: 'mcp-fix-saved', edited: false, decided_by: 'ann' });
  });

  test('a draft of three tickets → three runs → the operator dismisses with a note → await_decision says dismissed with it', async () => {
    const d = structured<{ id: string; status: string; from: string; preview: { ok: boolean; runs: { inputs: { tickets: string[] } }[] } }>(
      await carl.callTool({ name: 'draft_launch', arguments: { template: 'quick-fix', inputs: { tickets: ['DESK-1', 'DESK-2', 'DESK-3'] }, note: 'three flaky tests' } }),
    );
    expect(d).toMatchObject({ status: 'pending', from: 'carl', preview: { ok: true } });
    expect(d.preview.runs.map((r) => r.inputs.tickets)).toEqual([['DESK-1'], ['DESK-2'], ['DESK-3']]);
    expect(d).toEqual(await (await desk.api('GET', `/launches/${d.id}`, 'ann')).json());
    const decided = carl.callTool({ name: 'await_decision', arguments: { id: d.id, wait_s: 30 } });
    expect((await desk.api('POST', `/launches/${d.id}/dismiss`, 'ann', { note: 'not this week' })).status).toBe(200);
    expect(structured(await decided)).toMatchObject({ kind: 'launch', id: d.id, status: 'dismissed', note: 'not this week', decided_by: 'ann', runs: null });
  });

  test('approved: await_decision answers the runs to start', async () => {
    const d = structured<{ id: string }>(await carl.callTool({ name: 'draft_launch', arguments: { template: 'quick-fix', inputs: { tickets: ['DESK-9'] } } }));
    expect((await desk.api('POST', `/launches/${d.id}/approve`, 'ann')).status).toBe(200);
    const r = structured<{ status: string; runs: unknown[] }>(await carl.callTool({ name: 'await_decision', arguments: { id: d.id, wait_s: 0 } }));
    expect(r.status).toBe('approved');
    expect(r.runs).toHaveLength(1);
  });

  test("withdraw_launch withdraws its own draft, under the person's name; again it is refused already_decided; another's is forbidden", async () => {
    const d = structured<{ id: string }>(await carl.callTool({ name: 'draft_launch', arguments: { template: 'quick-fix', inputs: { tickets: ['DESK-5'] } } }));
    expect(structured(await carl.callTool({ name: 'withdraw_launch', arguments: { id: d.id } }))).toMatchObject({ status: 'withdrawn', decided_by: 'carl' });
    expect(refusalOf(await carl.callTool({ name: 'withdraw_launch', arguments: { id: d.id } })).code).toBe('already_decided');
    // the history's who and author are the person the token names (commits land a little after the write)
    let commit: { who: string | null; author: string } | undefined;
    for (let i = 0; i < 50 && !commit; i++) {
      const { commits } = (await (await desk.api('GET', '/history?limit=100', 'ann')).json()) as { commits: { message: string; who: string | null; author: string }[] };
      commit = commits.find((c) => c.message.includes(d.id) && c.message.includes('withdrawn'));
      if (!commit) await new Promise((done) => setTimeout(done, 100));
    }
    expect(commit).toMatchObject({ who: 'carl', author: expect.stringMatching(/^carl /) });
    const anns = (await (await desk.api('POST', '/launches', 'ann', { template: 'quick-fix', inputs: { tickets: ['DESK-6'] } })).json()) as { id: string };
    expect(refusalOf(await carl.callTool({ name: 'withdraw_launch', arguments: { id: anns.id } })).code).toBe('forbidden');
    expect(((await (await desk.api('GET', `/launches/${anns.id}`, 'ann')).json()) as { status: string }).status).toBe('pending');
  });

  test('await_decision sends progress while it waits, when asked, and answers pending when the wait ends', async () => {
    const p = structured<{ id: string }>(await carl.callTool({ name: 'propose_template', arguments: { name: 'slow', purpose: 'nobody decides', source: FIX('slow') } }));
    const seen: number[] = [];
    const r = await carl.callTool({ name: 'await_decision', arguments: { id: p.id, wait_s: 3 } }, undefined, { onprogress: (n) => seen.push(n.progress) });
    expect(structured(r)).toMatchObject({ status: 'pending' });
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
  });
});

describe('refused calls keep nothing', () => {
  test('a two-line purpose: isError with purpose.multiline at /purpose; no proposal kept', async () => {
    const before = await countOf('proposals');
    const r = refusalOf(await carl.callTool({ name: 'propose_template', arguments: { name: 'two', purpose: 'one\ntwo', source: FIX('two') } }));
    expect(r.code).toBe('invalid_proposal');
    expect(r.problems).toContainEqual(expect.objectContaining({ code: 'purpose.multiline', path: '/purpose' }));
    expect(await countOf('proposals')).toBe(before);
  });

  test('an injected {{…}} input: isError with input.introduces_machinery; no draft kept', async () => {
    const before = await countOf('launches');
    const r = refusalOf(await carl.callTool({ name: 'draft_launch', arguments: { template: 'quick-fix', inputs: { tickets: ['DESK-14 {{run.secret}}'] } } }));
    expect(r.code).toBe('invalid_launch');
    expect(r.problems.map((p) => p.code)).toContain('input.introduces_machinery');
    expect(r.problems[0]!.path).toBe('/inputs/tickets/0');
    expect(await countOf('launches')).toBe(before);
  });

  test('arguments outside the inputSchema are a refusal too; an unknown tool is a JSON-RPC error', async () => {
    const r = refusalOf(await carl.callTool({ name: 'propose_template', arguments: { name: 'x', purpose: 'p', source: 's', from: 'me' } }));
    expect(r.code).toBe('bad_request');
    expect(r.problems.map((p) => p.path)).toContain('/from');
    await expect(carl.callTool({ name: 'save_template', arguments: {} })).rejects.toMatchObject({ code: -32602 });
  });
});

describe('the guards', () => {
  test('no token: 401 with WWW-Authenticate Bearer; a viewer: 403 forbidden; an editor may', async () => {
    const none = await post(desk.base, INITIALIZE);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer /);
    const vera = await post(desk.base, INITIALIZE, { authorization: `Bearer ${(await import('./users-fixture.js')).TOKENS.vera}` });
    expect(vera.status).toBe(403);
    expect(await vera.json()).toMatchObject({ code: 'forbidden', needed_role: 'conductor' });
    const ann = await desk.client('ann');
    expect((await ann.listTools()).tools).toHaveLength(TOOLS.length);
  });

  test('a foreign Origin is refused 403, a foreign Host 421, and nothing is answered', async () => {
    const token = { authorization: `Bearer ${(await import('./users-fixture.js')).TOKENS.carl}` };
    const origin = await post(desk.base, INITIALIZE, { ...token, origin: 'http://evil.example.com' });
    expect(origin.status).toBe(403);
    expect(((await origin.json()) as { code: string }).code).toBe('forbidden_origin');
    // fetch sends the URL's own Host whatever it is told: node:http sends the one given
    const host = await new Promise<number>((resolve, reject) => {
      const body = JSON.stringify(INITIALIZE);
      const r = request(`${desk.base}${MCP}`, { method: 'POST', headers: { ...token, host: 'evil.example.com', 'content-type': 'application/json', accept: 'application/json, text/event-stream' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      r.once('error', reject);
      r.end(body);
    });
    expect(host).toBe(421);
  });

  test('GET and DELETE: 405 with Allow: POST', async () => {
    const token = { authorization: `Bearer ${(await import('./users-fixture.js')).TOKENS.carl}` };
    for (const method of ['GET', 'DELETE']) {
      const r = await fetch(`${desk.base}${MCP}`, { method, headers: { ...token, accept: 'text/event-stream' } });
      expect(r.status, method).toBe(405);
      expect(r.headers.get('allow')).toBe('POST');
      expect(((await r.json()) as { code: string }).code).toBe('method_not_allowed');
    }
  });

  test('an answer carries no-store and nosniff, and the request log line names the person', async () => {
    const token = { authorization: `Bearer ${(await import('./users-fixture.js')).TOKENS.carl}` };
    const r = await post(desk.base, INITIALIZE, token);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(((await r.json()) as { result: { protocolVersion: string } }).result.protocolVersion).toBe('2025-11-25');
    await new Promise((done) => setTimeout(done, 50));
    expect(desk.log.filter((l) => l.msg === 'request' && l.url === MCP && l.method === 'POST').at(-1)).toMatchObject({ status: 200, user: 'carl' });
  });

  test('a tool call with a progress token is answered as an event stream, with the same headers; without one, as JSON', async () => {
    const token = { authorization: `Bearer ${(await import('./users-fixture.js')).TOKENS.carl}` };
    const call = (meta: object) => ({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'get_template', arguments: { name: 'quick-fix' }, ...meta } });
    const streamed = await post(desk.base, call({ _meta: { progressToken: 'p1' } }), token);
    expect(streamed.status).toBe(200);
    expect(streamed.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(streamed.headers.get('cache-control')).toBe('no-store');
    expect(streamed.headers.get('x-content-type-options')).toBe('nosniff');
    const event = (await streamed.text()).split('\n').find((l) => l.startsWith('data: '));
    expect(JSON.parse(event!.slice(6))).toMatchObject({ id: 7, result: { structuredContent: { name: 'quick-fix' } } });
    const plain = await post(desk.base, call({}), token);
    expect(plain.headers.get('content-type')).toMatch(/^application\/json/);
    expect(((await plain.json()) as { result: { structuredContent: { name: string } } }).result.structuredContent.name).toBe('quick-fix');
  });

  test('protocol 2025-06-18 is spoken too', async () => {
    const token = { authorization: `Bearer ${(await import('./users-fixture.js')).TOKENS.carl}` };
    const r = await post(desk.base, { ...INITIALIZE, params: { ...INITIALIZE.params, protocolVersion: '2025-06-18' } }, token);
    expect(await r.text()).toMatch(/"protocolVersion":"2025-06-18"/);
  });
});

describe('the bounds every caller meets', () => {
  test('a body over 1 MiB is 413 before any tool runs', async () => {
    const token = { authorization: `Bearer ${(await import('./users-fixture.js')).TOKENS.carl}` };
    const before = await countOf('proposals');
    const big = { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'propose_template', arguments: { name: 'big', purpose: 'too big', source: 'x'.repeat(1_100_000) } } };
    const r = await post(desk.base, big, token);
    expect(r.status).toBe(413);
    expect(((await r.json()) as { code: string }).code).toBe('payload_too_large');
    expect(await countOf('proposals')).toBe(before);
  });

  test("past the person's hourly allowance, propose_template is refused too_many_requests with retry_after", async () => {
    const small = await openDesk({ proposals: { perHour: 1 } });
    try {
      const c = await small.client('carl');
      const args = (name: string) => ({ name, purpose: 'one an hour', source: FIX(name) });
      expect(structured(await c.callTool({ name: 'propose_template', arguments: args('first') }))).toMatchObject({ status: 'pending' });
      const r = refusalOf(await c.callTool({ name: 'propose_template', arguments: args('second') })) as Refusal & { retry_after: number };
      expect(r.code).toBe('too_many_requests');
      expect(r.retry_after).toBeGreaterThan(0);
      // the allowance is the person's, over HTTP and MCP alike
      expect((await small.api('POST', '/proposals', 'carl', args('third'))).status).toBe(429);
    } finally {
      await small.close();
    }
  });
});

describe('a caller that goes away', () => {
  test('a wait whose caller hung up stops waiting: its place among the waiters is free again', async () => {
    // one waiter allowed: a wait past the bound answers at once, so a second wait that waits proves the first ended
    const one = await openDesk({ maxWaiters: 1 });
    try {
      const c = await one.client('carl');
      const p = structured<{ id: string }>(await c.callTool({ name: 'propose_template', arguments: { name: 'gone', purpose: 'the caller hangs up', source: FIX('gone') } }));
      const body = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'await_decision', arguments: { id: p.id, wait_s: 30 } } });
      const hungUp = await new Promise<boolean>((done) => {
        const req = request(`${one.base}${MCP}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKENS.carl}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
        });
        req.on('error', () => done(true));
        req.on('response', () => done(false));
        req.end(body);
        setTimeout(() => req.destroy(), 400);
      });
      expect(hungUp).toBe(true);
      await new Promise((done) => setTimeout(done, 200));
      const t0 = Date.now();
      expect(structured(await c.callTool({ name: 'await_decision', arguments: { id: p.id, wait_s: 2 } }))).toMatchObject({ status: 'pending' });
      expect(Date.now() - t0).toBeGreaterThanOrEqual(1_500);
    } finally {
      await one.close();
    }
  });
});

describe('stopping', () => {
  test('a wait for a decision answers pending at once when the service stops', async () => {
    const p = structured<{ id: string }>(await carl.callTool({ name: 'propose_template', arguments: { name: 'late', purpose: 'the service stops', source: FIX('late') } }));
    const waiting = carl.callTool({ name: 'await_decision', arguments: { id: p.id, wait_s: 55 } });
    await new Promise((done) => setTimeout(done, 300));
    const t0 = Date.now();
    await desk.app.close();
    expect(structured(await waiting)).toMatchObject({ status: 'pending' });
    expect(Date.now() - t0).toBeLessThan(5_000);
  });
});
