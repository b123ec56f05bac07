// The library checks templates against its roles' kits (docs/format.md, "May
// mutate tickets"): the built-in kit, an operator's saved kit and a kit.json
// edited by hand each count at the next read, and the card's touches show
// what the kit grants. Through openLibrary, as the service and CLI use it.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { main } from '../src/cli.js';
import { canonicalJson } from '../src/library/roles/canonical.js';
import type { Library } from '../src/library/types.js';
import { API, fixture as httpFixture } from './http-fixture.js';
import { type Fixture, fixture, rejection } from './library-helpers.js';

/** Closes a ticket with a read_only node: only its role's kit can make it mutate tickets. No proof. */
const CLOSER = `template:
  name: closer
  purpose: close a ticket without proving it
  entry: close
  inlet: start
version: 1
nodes:
  close: { type: model, role: ticket_close, profile: read_only }
`;

const HARNESS = {
  templates: {},
  roles: {
    ticket_close: { md: 'You close tickets.', kit: { tools: ['tickets.read', 'tickets.update'] } },
    worker: { md: 'You do the work.', kit: { tools: ['workspace.read'] } },
  },
};

/** A library over HARNESS on a temp root, closed after `fn`. */
async function withLibrary(fn: (lib: Library, fx: Fixture) => Promise<void>): Promise<void> {
  const fx = await fixture(HARNESS);
  const lib = await fx.open();
  try {
    await fn(lib, fx);
  } finally {
    await lib.close();
  }
}

const at = (problems: { code: string; path: string }[]) => problems.map((p) => `${p.code} ${p.path}`);

describe("a role's kit in the library's checks", () => {
  test('a built-in kit granting tickets.update refuses the save; the card shows what the kit grants', () =>
    withLibrary(async (lib) => {
      const err = await rejection(lib.saveTemplate('closer', CLOSER));
      expect(err).toMatchObject({ code: 'invalid_template' });
      expect(at(err.extra.problems)).toEqual(['ticket.mutation_unproven /nodes/close/role']);
      // near miss: the same node playing a role whose kit only reads
      const saved = await lib.saveTemplate('closer', CLOSER.replace('role: ticket_close', 'role: worker'));
      expect(saved.problems).toEqual([]);
      const card = (await lib.getTemplate('closer', { card: true }))?.card;
      expect(card?.nodes.find((n) => n.id === 'close')?.touches).toEqual(['workspace.read', 'tickets.read']);
    }));

  test("an operator's saved kit without tickets.update lets it save; putting it back refuses it again", () =>
    withLibrary(async (lib) => {
      await lib.saveRole('ticket_close', 'You close tickets.', { tools: ['tickets.read'] });
      const saved = await lib.saveTemplate('closer', CLOSER);
      expect(saved.valid).toBe(true);
      await lib.saveRole('ticket_close', 'You close tickets.', { tools: ['tickets.read', 'tickets.update'] });
      // the same bytes, validated again under the changed kit (not the memo's old answer)
      expect(at((await lib.getTemplate('closer'))!.problems)).toEqual(['ticket.mutation_unproven /nodes/close/role']);
    }));

  test('a kit.json edited by hand counts at the next read', () =>
    withLibrary(async (lib, fx) => {
      await lib.saveRole('ticket_close', 'You close tickets.', { tools: ['tickets.read'] });
      await lib.saveTemplate('closer', CLOSER);
      expect((await lib.getTemplate('closer'))!.valid).toBe(true);
      await writeFile(join(fx.root, 'roles', 'ticket_close', 'kit.json'), canonicalJson({ tools: ['tickets.update'] }));
      expect(at((await lib.getTemplate('closer'))!.problems)).toEqual(['ticket.mutation_unproven /nodes/close/role']);
      const listed = (await lib.listTemplates()).find((t) => t.name === 'closer');
      expect(listed?.valid).toBe(false);
    }));
});

describe('the command line checks kits too', () => {
  test("the built-in ticket_close kit refuses the file; a --library copy of the role whose kit only reads lets it pass", async () => {
    const fx = await fixture(HARNESS);
    const file = join(fx.base, 'closer.yaml');
    await writeFile(file, CLOSER);
    const out: string[] = [];
    const io = { out: (s: string) => void out.push(s), err: (s: string) => void out.push(s) };
    expect(await main(['validate', '--format', 'json', file], io)).toBe(1);
    expect(at((JSON.parse(out.join('')) as { problems: { code: string; path: string }[] }[])[0]!.problems)).toEqual(['ticket.mutation_unproven /nodes/close/role']);
    await mkdir(join(fx.root, 'roles', 'ticket_close'), { recursive: true });
    await writeFile(join(fx.root, 'roles', 'ticket_close', 'role.md'), 'You close tickets.\n');
    await writeFile(join(fx.root, 'roles', 'ticket_close', 'kit.json'), canonicalJson({ tools: ['tickets.read'] }));
    out.length = 0;
    expect(await main(['validate', '--library', fx.root, file], io)).toBe(0);
  });
});

describe('over HTTP, the card answers what the rules read', () => {
  test('kit tools in touches, loops with their bounds, max_visits, runs; a reserved name is a 422', async () => {
    const fx = await httpFixture();
    const app = await fx.open();
    try {
      const LOOPED = `template:
  name: looped
  purpose: work until the checks pass
  inputs:
    - { name: items, type: list }
  entry: work
  inlet: start
version: 1
nodes:
  work: { type: model, role: worker, profile: read_only, inlets: [start, revise], max_visits: 3 }
  checks: { type: builtin, builtin: checks }
cords:
  - { from: work.done, to: checks.in }
  - { from: checks.failed, to: work.revise }
`;
      const put = await app.inject({ method: 'PUT', url: `${API}/templates/looped`, payload: { source: LOOPED } });
      expect(put.statusCode).toBe(200);
      const card = (await app.inject({ url: `${API}/templates/looped` })).json().card;
      // the fixture's worker kit grants shell.run
      expect(card.nodes.find((n: { id: string }) => n.id === 'work')).toMatchObject({ touches: ['workspace.read', 'tickets.read', 'shell.run'], max_visits: 3 });
      expect(card.loops).toEqual([{ cycle: ['work', 'checks', 'work'], nodes: ['work', 'checks'], bounds: [{ node: 'work', max_visits: 3 }], bounded: true }]);
      expect(card.header.inputs[0]).toMatchObject({ name: 'items', runs: 'together' });
      const reserved = await app.inject({ method: 'PUT', url: `${API}/templates/shipped`, payload: { source: LOOPED.replace('name: looped', 'name: shipped') } });
      expect(reserved.statusCode).toBe(422);
      expect(reserved.json().problems.map((p: { code: string }) => p.code)).toEqual(['name.reserved']);
    } finally {
      await app.close();
      await fx.cleanup();
    }
  });
});
