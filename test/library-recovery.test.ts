import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { roleRevision, sha256Hex } from '../src/library/disk/markers.js';
import type { Library } from '../src/library/types.js';
import { type Fixture, fixture, tpl } from './library-helpers.js';

/**
 * Crash consistency (docs/operations.md, The library root on disk): each write is cut before every
 * one of its file-system steps in turn — the fault hook throws there and at
 * every step after, as if the process had died — then the library is opened
 * again and must tell the truth: the old state or the new one, never
 * edited_outside, markers that match their files, no temp or intent file.
 */

const h = sha256Hex;
const V1 = tpl('alpha', 'alpha v1');
const EDIT = tpl('alpha', 'alpha edited');
const EDIT2 = tpl('alpha', 'alpha edited twice');

type Outcome = 'old' | 'new';

interface Scenario {
  label: string;
  setup?: (lib: Library, fx: Fixture) => Promise<void>;
  op: (lib: Library) => Promise<unknown>;
  /** asserts the reopened library shows exactly one of the two outcomes, and says which */
  check: (lib: Library, fx: Fixture, onDisk?: boolean) => Promise<Outcome>;
}

async function readOrNull(path: string): Promise<string | null> {
  return readFile(path, 'utf8').catch(() => null);
}

/** One template outcome: what loads, its state, and the marker bytes on disk (null: no marker file). */
interface TemplateSide {
  source: string;
  state: string;
  marker: string | null;
}

function templateCheck(old: TemplateSide, next: TemplateSide) {
  return async (lib: Library, fx: Fixture, onDisk = true): Promise<Outcome> => {
    const e = (await lib.getTemplate('alpha'))!;
    expect(e.edited_outside).toBe(false);
    const which: Outcome = e.source === next.source && e.state === next.state ? 'new' : 'old';
    const side = which === 'new' ? next : old;
    expect([e.source, e.state]).toEqual([side.source, side.state]);
    if (onDisk) expect(await readOrNull(join(fx.root, 'templates', '.alpha.shipped'))).toBe(side.marker);
    return which;
  };
}

interface RoleSide {
  role_md: string;
  kit: { tools: string[] } | null;
  state: string;
  marker: string | null;
}

function roleCheck(old: RoleSide, next: RoleSide) {
  return async (lib: Library, fx: Fixture, onDisk = true): Promise<Outcome> => {
    const r = (await lib.getRole('worker'))!;
    expect(r.edited_outside).toBe(false);
    expect(r.valid).toBe(true);
    const which: Outcome = r.role_md === next.role_md && JSON.stringify(r.kit) === JSON.stringify(next.kit) && r.state === next.state ? 'new' : 'old';
    const side = which === 'new' ? next : old;
    expect([r.role_md, r.kit, r.state]).toEqual([side.role_md, side.kit, side.state]);
    if (onDisk) expect(await readOrNull(join(fx.root, 'roles', 'worker', '.shipped'))).toBe(side.marker);
    return which;
  };
}

const SHIPPED_MD = 'You do the work.\n';
const SHIPPED_KIT = { tools: ['workspace.read'] };
const kitBytes = (k: { tools: string[] }) => Buffer.from(JSON.stringify(k, null, 2) + '\n');
const SHIPPED_REV = roleRevision(Buffer.from(SHIPPED_MD), kitBytes(SHIPPED_KIT));
const NEW_MD = 'You do the work, and test it.\n';
const NEW_KIT = { tools: ['shell.run', 'workspace.read'] };
const NEW_REV = roleRevision(Buffer.from(NEW_MD), kitBytes(NEW_KIT));
const NOKIT_REV = roleRevision(Buffer.from(NEW_MD), null);

const scenarios: Scenario[] = [
  {
    label: 'template save: shipped → edited',
    op: (lib) => lib.saveTemplate('alpha', EDIT),
    check: templateCheck({ source: V1, state: 'shipped', marker: null }, { source: EDIT, state: 'edited', marker: `${h(V1)}\ncopy ${h(EDIT)}\n` }),
  },
  {
    label: 'template save: edited → edited again',
    setup: async (lib) => void (await lib.saveTemplate('alpha', EDIT)),
    op: (lib) => lib.saveTemplate('alpha', EDIT2),
    check: templateCheck({ source: EDIT, state: 'edited', marker: `${h(V1)}\ncopy ${h(EDIT)}\n` }, { source: EDIT2, state: 'edited', marker: `${h(V1)}\ncopy ${h(EDIT2)}\n` }),
  },
  {
    label: 'template save over a copy of an older shipped version',
    setup: async (_lib, fx) => {
      await writeFile(join(fx.root, 'templates', 'alpha.yaml'), EDIT);
      await writeFile(join(fx.root, 'templates', '.alpha.shipped'), `${h('older')}\ncopy ${h(EDIT)}\n`);
    },
    op: (lib) => lib.saveTemplate('alpha', V1),
    check: templateCheck(
      { source: EDIT, state: 'shipped_changed_since', marker: `${h('older')}\ncopy ${h(EDIT)}\n` },
      { source: V1, state: 'same_as_shipped', marker: `${h(V1)}\ncopy ${h(V1)}\n` },
    ),
  },
  {
    label: 'template reset: edited → shipped',
    setup: async (lib) => void (await lib.saveTemplate('alpha', EDIT)),
    op: (lib) => lib.resetTemplate('alpha'),
    check: templateCheck({ source: EDIT, state: 'edited', marker: `${h(V1)}\ncopy ${h(EDIT)}\n` }, { source: V1, state: 'shipped', marker: null }),
  },
  {
    label: 'template acknowledge: shipped_changed_since → edited',
    setup: async (_lib, fx) => {
      await writeFile(join(fx.root, 'templates', 'alpha.yaml'), EDIT);
      await writeFile(join(fx.root, 'templates', '.alpha.shipped'), `${h('older')}\ncopy ${h(EDIT)}\n`);
    },
    op: (lib) => lib.acknowledgeTemplate('alpha'),
    check: templateCheck(
      { source: EDIT, state: 'shipped_changed_since', marker: `${h('older')}\ncopy ${h(EDIT)}\n` },
      { source: EDIT, state: 'edited', marker: `${h(V1)}\ncopy ${h(EDIT)}\n` },
    ),
  },
  {
    label: 'role save: shipped → edited with a new kit',
    op: (lib) => lib.saveRole('worker', NEW_MD, NEW_KIT),
    check: roleCheck(
      { role_md: SHIPPED_MD, kit: SHIPPED_KIT, state: 'shipped', marker: null },
      { role_md: NEW_MD, kit: NEW_KIT, state: 'edited', marker: `${SHIPPED_REV}\ncopy ${NEW_REV}\n` },
    ),
  },
  {
    label: 'role save: edited → kit removed',
    setup: async (lib) => void (await lib.saveRole('worker', NEW_MD, NEW_KIT)),
    op: (lib) => lib.saveRole('worker', NEW_MD, null),
    check: roleCheck(
      { role_md: NEW_MD, kit: NEW_KIT, state: 'edited', marker: `${SHIPPED_REV}\ncopy ${NEW_REV}\n` },
      { role_md: NEW_MD, kit: null, state: 'edited', marker: `${SHIPPED_REV}\ncopy ${NOKIT_REV}\n` },
    ),
  },
  {
    label: 'role reset: edited → shipped',
    setup: async (lib) => void (await lib.saveRole('worker', NEW_MD, NEW_KIT)),
    op: (lib) => lib.resetRole('worker'),
    check: roleCheck(
      { role_md: NEW_MD, kit: NEW_KIT, state: 'edited', marker: `${SHIPPED_REV}\ncopy ${NEW_REV}\n` },
      { role_md: SHIPPED_MD, kit: SHIPPED_KIT, state: 'shipped', marker: null },
    ),
  },
];

/** Every file under the root whose name says a write was left half done. */
async function leftovers(root: string): Promise<string[]> {
  const all = (await readdir(root, { recursive: true })) as string[];
  return all.filter((p) => /(^|\/)\.tmp-|\.intent$/.test(p));
}

/** Runs the scenario's op with a hook; `crashAt` = index of the step that dies (and all after it), or -1 to only record. */
async function run(s: Scenario, crashAt: number): Promise<{ fx: Fixture; steps: string[] }> {
  const fx = await fixture();
  await mkdir(join(fx.root, 'templates'));
  const steps: string[] = [];
  let armed = false;
  const faults = (step: string) => {
    if (!armed) return;
    steps.push(step);
    if (crashAt >= 0 && steps.length > crashAt) throw new Error(`simulated crash before ${step}`);
  };
  const lib = await fx.open({ faults });
  await s.setup?.(lib, fx);
  armed = true;
  await s.op(lib).catch(() => {});
  armed = false;
  await lib.close();
  return { fx, steps };
}

describe('a crash before any step of a write leaves a state that tells the truth', () => {
  test.each(scenarios)('$label', async (s) => {
    const { steps } = await run(s, -1);
    expect(steps.length).toBeGreaterThan(3);
    const seen = new Set<Outcome>();
    for (let i = 0; i <= steps.length; i++) {
      // i === steps.length: the write ran to the end
      const { fx } = await run(s, i === steps.length ? -1 : i);
      const lib = await fx.open();
      const outcome = await s.check(lib, fx).catch((e: Error) => {
        throw new Error(`crash before step ${i} (${steps[i] ?? 'none'}): ${e.message}`);
      });
      expect([i, await leftovers(fx.root)]).toEqual([i, []]);
      if (i === 0) expect(outcome).toBe('old');
      if (i === steps.length) expect(outcome).toBe('new');
      seen.add(outcome);
      await lib.close();
    }
    expect([...seen].sort()).toEqual(['new', 'old']);
  });
});

describe('a reader between any two steps of a write', () => {
  test.each(scenarios)('$label: sees the old or the new state, never edited_outside', async (s) => {
    const fx = await fixture();
    await mkdir(join(fx.root, 'templates'));
    let lib: Library | null = null;
    let armed = false;
    const seen: Outcome[] = [];
    const faults = async (step: string) => {
      if (!armed || !lib) return;
      // a reader is not queued behind the write: it reads whatever the files (and any intent) say now
      seen.push(await s.check(lib, fx, false).catch((e: Error) => Promise.reject(new Error(`read before ${step}: ${e.message}`))));
    };
    lib = await fx.open({ faults });
    await s.setup?.(lib, fx);
    armed = true;
    await s.op(lib);
    armed = false;
    expect(seen[0]).toBe('old');
    expect(await s.check(lib, fx)).toBe('new');
    // once the write is visible it stays visible
    expect(seen.slice(seen.indexOf('new')).every((o) => o === 'new') || !seen.includes('new')).toBe(true);
    await lib.close();
  });
});

describe('recovery at open', () => {
  test('a save intent whose copy landed rolls the marker forward; one whose copy did not is discarded', async () => {
    const fx = await fixture();
    const t = join(fx.root, 'templates');
    await mkdir(t);
    await writeFile(join(t, 'alpha.yaml'), EDIT);
    await writeFile(join(t, '.alpha.shipped'), `${h(V1)}\ncopy ${h(V1)}\n`);
    await writeFile(join(t, '.alpha.intent'), `save\n${h(V1)}\ncopy ${h(EDIT)}\n`);
    await writeFile(join(t, 'beta.yaml'), EDIT);
    await writeFile(join(t, '.beta.shipped'), `${h('b')}\ncopy ${h(EDIT)}\n`);
    await writeFile(join(t, '.beta.intent'), `save\n${h(V1)}\ncopy ${h('never landed')}\n`);
    await writeFile(join(t, '.gamma.intent'), 'garbage');
    await writeFile(join(t, '.tmp-alpha.yaml-123'), 'torn');
    const lib = await fx.open();
    expect(await readFile(join(t, '.alpha.shipped'), 'utf8')).toBe(`${h(V1)}\ncopy ${h(EDIT)}\n`);
    expect(await readFile(join(t, '.beta.shipped'), 'utf8')).toBe(`${h('b')}\ncopy ${h(EDIT)}\n`);
    expect((await readdir(t)).sort()).toEqual(['.alpha.shipped', '.beta.shipped', 'alpha.yaml', 'beta.yaml']);
    await lib.close();
  });
});
