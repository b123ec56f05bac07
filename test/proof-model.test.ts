/**
 * Model-based proof of the library (docs/security.md, Model-based tests):
 * fast-check runs random sequences of saves (valid, invalid, identical to
 * shipped), resets, acknowledges, deletes, lists and restarts — a restart
 * may reopen on a harness whose shipped `alpha` changed, so `stale` and
 * `shipped_changed_since` are reached — against a model that says, per name,
 * which bytes load, which marker is on disk and which base is kept. The state
 * the library reports is computed from the model by the States table
 * (proof-helpers.ts expectedState), never by the library's own code.
 *
 * A second property drives concurrent saves of one name under fc.scheduler,
 * which also orders every file-system step (through the library's fault
 * hook): the bytes that load are exactly one of the versions sent, the marker
 * matches them, and of the saves carrying the same If-Match at most one lands.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { openLibrary } from '../src/library/library.js';
import type { Library, TemplateEntry } from '../src/library/types.js';
import { DEFAULT_HARNESS, makeHarness, tempDir, tpl } from './library-helpers.js';
import { assertWithin, expectedState, fullProof, proofBudgetMs, proofTimeoutMs, readMarker, readOrNull, runSeed, scaled, sha256 } from './proof-helpers.js';
import { testSpawner } from './test-spawner.js';

/** 150 sequences and 150 interleavings in the full proof, scaled by PROOF_ROUNDS (proof-helpers.ts) */
const MODEL_RUNS = scaled(150);
const MODEL_SEED = 20261129;
const MAX_COMMANDS = 25;
const SCHEDULER_RUNS = scaled(150);
const SCHEDULER_SEED = 20261130;
/** a sequence takes ~25 ms idle; 1 s each is the budget */
const BUDGET_MS = proofBudgetMs(1_000, MODEL_RUNS);

type HarnessId = 'a' | 'b';
const SHIPPED: Record<HarnessId, Record<string, string>> = {
  a: { alpha: tpl('alpha', 'alpha v1'), beta: tpl('beta', 'beta v1') },
  // the next release: alpha changed, beta did not
  b: { alpha: tpl('alpha', 'alpha v2, reworded upstream'), beta: tpl('beta', 'beta v1') },
};
const NAMES = ['alpha', 'beta', 'gamma'] as const;
type Name = (typeof NAMES)[number];

let base: string;
const harness: Record<HarnessId, string> = { a: '', b: '' };

beforeAll(async () => {
  base = await tempDir('desk-proof-model-');
  for (const h of ['a', 'b'] as const) {
    harness[h] = await makeHarness(join(base, `harness-${h}`), { ...DEFAULT_HARNESS, templates: SHIPPED[h] });
  }
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

// ---------------------------------------------------------------- the model

interface NameModel {
  /** the operator's copy, or null */
  copy: string | null;
  /** the marker on disk, or null; the service always writes the copy line */
  marker: { shipped: string; copy: string } | null;
}

interface Model {
  harness: HarnessId;
  names: Record<Name, NameModel>;
  /** kept shipped bases by hash, as the library keeps them */
  bases: Map<string, string>;
}

interface Real {
  lib: Library;
  root: string;
}

const shippedText = (m: Model, name: Name): string | null => SHIPPED[m.harness][name] ?? null;

function stateOf(m: Model, name: Name): string | null {
  const today = shippedText(m, name);
  const { copy, marker } = m.names[name];
  return expectedState(today === null ? null : sha256(today), copy === null ? null : sha256(copy), marker);
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    return (e as { code?: string }).code ?? (e as Error).name;
  }
  return 'resolved';
}

/** every state the model runs reached, for the coverage check */
const seen = new Set<string>();

/** Library, disk and model agree on every name. */
async function agree(m: Model, r: Real): Promise<void> {
  for (const n of NAMES) seen.add(String(stateOf(m, n)));
  const list = new Map((await r.lib.listTemplates()).map((e) => [e.name, e]));
  for (const name of NAMES) {
    const state = stateOf(m, name);
    const e = await r.lib.getTemplate(name);
    const { copy, marker } = m.names[name];
    const loads = copy ?? shippedText(m, name);
    if (state === null) {
      expect(e, `${name} absent`).toBeNull();
      expect(list.has(name)).toBe(false);
      continue;
    }
    expect(e, name).not.toBeNull();
    expect({ name, state: e!.state, source: e!.source, edited_outside: e!.edited_outside, valid: e!.valid, etag: e!.etag }).toEqual({
      name,
      state,
      source: loads,
      edited_outside: false,
      valid: true,
      etag: `"${sha256(loads!)}"`,
    });
    expect(list.get(name)?.state, `${name} listed`).toBe(state);
    const onDisk = (await readOrNull(join(r.root, 'templates', `.${name}.shipped`)))?.toString('utf8') ?? null;
    expect(readMarker(onDisk), `${name} marker on disk`).toEqual(marker);
    expect(onDisk === null, `${name} marker file`).toBe(marker === null);
    const kept = copy !== null && marker !== null ? m.bases.get(marker.shipped)! : null;
    expect(await r.lib.keptBase(name), `${name} kept base`).toBe(kept);
  }
  for (const e of list.values()) expect(e.name.startsWith('.')).toBe(false);
}

// ---------------------------------------------------------------- commands

type SaveKind = { kind: 'valid'; k: number } | { kind: 'invalid' } | { kind: 'identical' };

class SaveCmd implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly name: Name,
    readonly what: SaveKind,
  ) {}
  check = () => true;
  source(m: Model): string {
    const { name, what } = this;
    if (what.kind === 'invalid') return `template:\n  name: ${name}\n  purpose: [unclosed\n`;
    if (what.kind === 'identical') return shippedText(m, name) ?? tpl(name, `${name} custom identical`);
    return tpl(name, `${name} edit ${what.k}`);
  }
  async run(m: Model, r: Real): Promise<void> {
    const src = this.source(m);
    if (this.what.kind === 'invalid') {
      expect(await codeOf(r.lib.saveTemplate(this.name, src))).toBe('invalid_template');
    } else {
      const e = await r.lib.saveTemplate(this.name, src);
      const today = shippedText(m, this.name);
      m.names[this.name] = { copy: src, marker: today === null ? null : { shipped: sha256(today), copy: sha256(src) } };
      if (today !== null) m.bases.set(sha256(today), today);
      expect(e.state).toBe(stateOf(m, this.name));
    }
    await agree(m, r);
  }
  toString = () => `save(${this.name}, ${this.what.kind}${this.what.kind === 'valid' ? ` ${this.what.k}` : ''})`;
}

class ResetCmd implements fc.AsyncCommand<Model, Real> {
  constructor(readonly name: Name) {}
  check = () => true;
  async run(m: Model, r: Real): Promise<void> {
    if (shippedText(m, this.name) === null) {
      expect(await codeOf(r.lib.resetTemplate(this.name))).toBe('not_shipped');
    } else {
      expect((await r.lib.resetTemplate(this.name)).state).toBe('shipped');
      m.names[this.name] = { copy: null, marker: null };
    }
    await agree(m, r);
  }
  toString = () => `reset(${this.name})`;
}

class AcknowledgeCmd implements fc.AsyncCommand<Model, Real> {
  constructor(readonly name: Name) {}
  check = () => true;
  async run(m: Model, r: Real): Promise<void> {
    const state = stateOf(m, this.name);
    if (state === 'shipped_changed_since') {
      const today = shippedText(m, this.name)!;
      const nm = m.names[this.name];
      nm.marker = { shipped: sha256(today), copy: nm.marker!.copy };
      m.bases.set(sha256(today), today);
      expect((await r.lib.acknowledgeTemplate(this.name)).state).toBe(stateOf(m, this.name));
    } else {
      expect(await codeOf(r.lib.acknowledgeTemplate(this.name))).toBe(state === null ? 'not_found' : 'state_conflict');
    }
    await agree(m, r);
  }
  toString = () => `acknowledge(${this.name})`;
}

class DeleteCmd implements fc.AsyncCommand<Model, Real> {
  constructor(readonly name: Name) {}
  check = () => true;
  async run(m: Model, r: Real): Promise<void> {
    const state = stateOf(m, this.name);
    if (shippedText(m, this.name) !== null) expect(await codeOf(r.lib.deleteTemplate(this.name))).toBe('not_custom');
    else if (state === null) expect(await codeOf(r.lib.deleteTemplate(this.name))).toBe('not_found');
    else {
      await r.lib.deleteTemplate(this.name);
      m.names[this.name] = { copy: null, marker: null };
    }
    await agree(m, r);
  }
  toString = () => `delete(${this.name})`;
}

class ListCmd implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(m: Model, r: Real): Promise<void> {
    const list = await r.lib.listTemplates();
    const expected = NAMES.map((n) => [n, stateOf(m, n)] as const).filter(([, s]) => s !== null);
    expect(list.map((e: TemplateEntry) => [e.name, e.state]).sort()).toEqual([...expected].sort());
    expect(list.every((e) => !e.edited_outside && e.valid)).toBe(true);
  }
  toString = () => 'list';
}

class RestartCmd implements fc.AsyncCommand<Model, Real> {
  constructor(readonly to: HarnessId) {}
  check = () => true;
  async run(m: Model, r: Real): Promise<void> {
    await r.lib.close();
    r.lib = await openLibrary({ spawner: testSpawner, root: r.root, harnessDir: harness[this.to], readOnlyTemplates: new Map() });
    m.harness = this.to;
    await agree(m, r);
  }
  toString = () => `restart(${this.to})`;
}

const name = fc.constantFrom(...NAMES);
const saveKind: fc.Arbitrary<SaveKind> = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 1, max: 3 }).map((k) => ({ kind: 'valid' as const, k })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'invalid' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'identical' as const }) },
);
const commands = [
  fc.tuple(name, saveKind).map(([n, k]) => new SaveCmd(n, k)),
  name.map((n) => new ResetCmd(n)),
  name.map((n) => new AcknowledgeCmd(n)),
  name.map((n) => new DeleteCmd(n)),
  fc.constant(new ListCmd()),
  fc.constantFrom<HarnessId>('a', 'b').map((h) => new RestartCmd(h)),
];

test(`model: ${MODEL_RUNS} random sequences of up to ${MAX_COMMANDS} saves, resets, acknowledges, deletes, lists and restarts`, { timeout: proofTimeoutMs(BUDGET_MS) }, async () => {
  seen.clear();
  await assertWithin(
    'model proof',
    fc.asyncProperty(fc.commands(commands, { maxCommands: MAX_COMMANDS }), async (cmds) => {
      const root = await mkdtemp(join(base, 'root-'));
      const m: Model = { harness: 'a', names: { alpha: { copy: null, marker: null }, beta: { copy: null, marker: null }, gamma: { copy: null, marker: null } }, bases: new Map() };
      const r: Real = { lib: await openLibrary({ spawner: testSpawner, root, harnessDir: harness.a, readOnlyTemplates: new Map() }), root };
      try {
        await fc.asyncModelRun(() => ({ model: m, real: r }), cmds);
      } finally {
        await r.lib.close();
        await rm(root, { recursive: true, force: true });
      }
    }),
    // A fixed seed by default: the coverage check below must not depend on luck in CI
    // (an unlucky seed once missed `stale`); PROOF_SEED explores others.
    { numRuns: MODEL_RUNS, seed: Number(process.env.PROOF_SEED ?? MODEL_SEED) },
    BUDGET_MS,
  );
  // the runs reached every state of the table a template can be in (read_only is code's, not the library's);
  // the short version's first sequences of the same seed do not reach `stale`
  if (fullProof()) for (const s of ['shipped', 'same_as_shipped', 'stale', 'shipped_changed_since', 'edited', 'custom']) expect(seen, s).toContain(s);
});

// ---------------------------------------------------------------- concurrency

interface ConcurrentSave {
  version: number;
  /** send If-Match with the ETag read before the burst */
  ifMatch: boolean;
}

test(`scheduler: ${SCHEDULER_RUNS} interleavings of concurrent saves of one name, with and without If-Match`, { timeout: proofTimeoutMs(BUDGET_MS) }, async () => {
  await assertWithin(
    'scheduler proof',
    fc.asyncProperty(
      fc.scheduler(),
      fc.constantFrom<Name>('alpha', 'gamma'),
      fc.array(fc.record({ version: fc.integer({ min: 1, max: 4 }), ifMatch: fc.boolean() }), { minLength: 2, maxLength: 6 }),
      async (s, target, saves: ConcurrentSave[]) => {
        const root = await mkdtemp(join(base, 'sched-'));
        // once the burst starts, every file-system step of a write waits for the scheduler's turn
        let burst = false;
        const faults = (step: string) => (burst ? s.schedule(Promise.resolve(), step).then(() => undefined) : undefined);
        const lib = await openLibrary({ spawner: testSpawner, root, harnessDir: harness.a, readOnlyTemplates: new Map(), faults });
        try {
          const v0 = tpl(target, `${target} before the burst`);
          const first = await lib.saveTemplate(target, v0);
          burst = true;
          const version = (i: number) => tpl(target, `${target} concurrent version ${i}`);
          const outcomes = saves.map((save) =>
            s
              .schedule(Promise.resolve(), `save v${save.version}${save.ifMatch ? ' if-match' : ''}`)
              .then(() => lib.saveTemplate(target, version(save.version), save.ifMatch ? { ifMatch: first.etag } : {}))
              .then(
                () => 'saved' as const,
                (e: { code?: string }) => e.code ?? 'threw',
              ),
          );
          const results = await s.waitFor(Promise.all(outcomes));
          burst = false;

          // without If-Match every save lands; with the first ETag at most one does, the rest get 412
          saves.forEach((save, i) => {
            if (!save.ifMatch) expect(results[i]).toBe('saved');
            else expect(['saved', 'precondition_failed']).toContain(results[i]);
          });
          expect(saves.filter((save, i) => save.ifMatch && results[i] === 'saved').length).toBeLessThanOrEqual(1);

          const landed = saves.filter((_, i) => results[i] === 'saved').map((save) => version(save.version));
          const onDisk = (await readOrNull(join(root, 'templates', `${target}.yaml`)))!.toString('utf8');
          expect(landed.length ? landed : [v0]).toContain(onDisk);
          const e = (await lib.getTemplate(target))!;
          expect([e.source, e.etag, e.edited_outside]).toEqual([onDisk, `"${sha256(onDisk)}"`, false]);
          const marker = readMarker((await readOrNull(join(root, 'templates', `.${target}.shipped`)))?.toString('utf8') ?? null);
          if (target === 'alpha') expect(marker).toEqual({ shipped: sha256(SHIPPED.a.alpha!), copy: sha256(onDisk) });
          else expect(marker).toBeNull();
        } finally {
          await lib.close();
          await rm(root, { recursive: true, force: true });
        }
      },
    ),
    // a fresh seed for the full proof, a fixed one for the short version; PROOF_SEED replays
    { numRuns: SCHEDULER_RUNS, seed: runSeed(SCHEDULER_SEED) },
    BUDGET_MS,
  );
});
