/**
 * The one door (src/library/door.ts): the steps of a write run in their
 * order, an invalid body is refused whatever the preconditions say, a failed
 * file step is answered by what landed, and each switch turns off its steps
 * and no other. A stand-in context records what the door asks of it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { DeskError } from '../src/errors.js';
import { type DoorSwitches, type Write, writeDoor } from '../src/library/door.js';
import { EventBus } from '../src/library/events/bus.js';
import type { Recorder } from '../src/library/history/recorder.js';
import { KeyedQueue } from '../src/library/queue.js';
import { folderOf, roleUnit, templateUnit, type Unit, unitKey, unitOfFolder } from '../src/library/unit.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'door-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A door over stand-ins; `seen` lists what it was asked, in order. */
function door(opts: { diverged?: boolean } = {}) {
  const seen: string[] = [];
  const recorder: Recorder = {
    found: (key) => seen.push(`found ${key}`),
    record: (key, message, who) => seen.push(`record ${key} ${message} ${who}`),
    recordPaths: () => {},
    round: () => ({ step() {}, stepPath() {}, finish() {}, abandon() {} }),
  };
  const events = new EventBus();
  events.subscribe((e) => seen.push(`event ${e.type}`));
  const queue = new KeyedQueue();
  const d = writeDoor({
    queue,
    writable: () => {
      seen.push('root');
      return { root };
    },
    recorder,
    events,
    logger: { info: (_o, msg) => seen.push(`log ${msg}`), warn: (_o, msg) => seen.push(`warn ${msg}`), error: () => {} },
    diverged: () => opts.diverged ?? false,
    settleDiverged: (u) => seen.push(`settle ${unitKey(u)}`),
  });
  return { d, seen, queue };
}

/** A write whose every part says it ran; `files` may be replaced. */
function write(seen: string[], over: Partial<Write<string, string>> = {}): Write<string, string> {
  return {
    unit: templateUnit('alpha'),
    refuse: () => seen.push('refuse'),
    validate: () => seen.push('validate'),
    standing: () => {
      seen.push('standing');
      return 'before';
    },
    preconditions: (b) => seen.push(`preconditions ${b}`),
    files: () => ({ run: async () => seen.push('files'), landed: () => true }),
    after: (b) => {
      seen.push(`after ${b}`);
      return { answer: 'answer', subject: 'save alpha', who: 'ann', log: { obj: {}, msg: 'template saved' }, event: { type: 'template.changed', data: { name: 'alpha', state: 'custom', etag: null } } };
    },
    ...over,
  };
}

describe('the door runs a write in its order', () => {
  test('name, refusals, root, body, found, what stands, preconditions, files, commit, log, event, answer', async () => {
    const { d, seen } = door();
    expect(await d.run(write(seen))).toBe('answer');
    expect(seen).toEqual(['refuse', 'root', 'validate', 'found template:alpha', 'standing', 'preconditions before', 'files', 'after before', 'record template:alpha save alpha ann', 'log template saved', 'event template.changed']);
  });

  test('a bad name is refused before anything else runs', async () => {
    const { d, seen } = door();
    const e = await d.run(write(seen, { unit: roleUnit('../x') })).catch((x: DeskError) => x);
    expect((e as DeskError).code).toBe('invalid_name');
    expect(seen).toEqual([]);
  });

  test('an invalid body is refused before the slot, whatever the preconditions would say', async () => {
    const { d, seen } = door();
    const w = write(seen, {
      validate: () => {
        throw new DeskError('invalid_template', 'no');
      },
      preconditions: () => {
        throw new DeskError('precondition_failed', 'stale');
      },
    });
    expect(((await d.run(w).catch((x) => x)) as DeskError).code).toBe('invalid_template');
    expect(seen).toEqual(['refuse', 'root']);
  });

  test('a diverged name: no found-on-disk (its copy is undecided), and the write settles its mark', async () => {
    const { d, seen } = door({ diverged: true });
    await d.run(write(seen));
    expect(seen.some((s) => s.startsWith('found'))).toBe(false);
    expect(seen.indexOf('settle template:alpha')).toBeGreaterThan(seen.indexOf('files'));
    expect(seen.indexOf('settle template:alpha')).toBeLessThan(seen.indexOf('after before'));
  });

  test('nothing to write (null file steps): still committed, logged and announced', async () => {
    const { d, seen } = door();
    await d.run(write(seen, { files: () => null }));
    expect(seen).not.toContain('files');
    expect(seen).toContain('record template:alpha save alpha ann');
  });

  test('a subject of null commits nothing', async () => {
    const { d, seen } = door();
    await d.run(write(seen, { after: () => ({ answer: 'a', subject: null, who: null }) }));
    expect(seen.some((s) => s.startsWith('record'))).toBe(false);
  });
});

describe('a failed file step is answered by what landed', () => {
  const failing = (landed?: () => boolean) => ({
    run: async () => {
      throw new DeskError('library_unwritable', 'ENOSPC');
    },
    ...(landed ? { landed } : {}),
  });

  test('past its commit point: the write succeeded, one warning, the rest of the steps run', async () => {
    const { d, seen } = door();
    expect(await d.run(write(seen, { files: () => failing(() => true) }))).toBe('answer');
    expect(seen).toContain('warn write landed; its last steps finish at the next start');
    expect(seen).toContain('event template.changed');
  });

  test('before it: the failure is the answer, and nothing is committed or announced', async () => {
    const { d, seen } = door();
    expect(((await d.run(write(seen, { files: () => failing(() => false) })).catch((x) => x)) as DeskError).code).toBe('library_unwritable');
    expect(seen.filter((s) => /^(record|event|log|after)/.test(s))).toEqual([]);
  });

  test('no landed check (a sync step): the failure is the caller’s as it is', async () => {
    const { d, seen } = door();
    expect(((await d.run(write(seen, { files: () => failing() })).catch((x) => x)) as DeskError).code).toBe('library_unwritable');
    expect(seen.some((s) => s.startsWith('warn'))).toBe(false);
  });
});

describe('each switch turns off its steps and no other', () => {
  const run = async (sw: DoorSwitches, diverged = false) => {
    const { d, seen } = door({ diverged });
    await d.run(write(seen), sw);
    return seen;
  };

  test('found: false — no found-on-disk; the commit and the event stay', async () => {
    const seen = await run({ found: false });
    expect(seen.some((s) => s.startsWith('found'))).toBe(false);
    expect(seen).toContain('record template:alpha save alpha ann');
    expect(seen).toContain('event template.changed');
  });

  test('settle: false — a diverged mark stays for the sync to clear', async () => {
    const seen = await run({ settle: false }, true);
    expect(seen.some((s) => s.startsWith('settle'))).toBe(false);
  });

  test('commit: a function — the name goes into the caller’s commit, none of its own', async () => {
    const keys: string[] = [];
    const seen = await run({ commit: (k) => keys.push(k) });
    expect(keys).toEqual(['template:alpha']);
    expect(seen.some((s) => s.startsWith('record'))).toBe(false);
  });

  test('commit: later — no commit; announce: false — no log line, no event', async () => {
    const seen = await run({ commit: 'later', announce: false });
    expect(seen.filter((s) => /^(record|log|event)/.test(s))).toEqual([]);
    expect(seen).toContain('files');
  });

  test('slot: held — runs at once though the name’s slot is taken', async () => {
    const { d, seen, queue } = door();
    let release = () => {};
    const holding = queue.run(unitKey(templateUnit('alpha')), () => new Promise<void>((r) => (release = r)));
    expect(await d.run(write(seen), { slot: 'held' })).toBe('answer');
    // without the switch the write waits for the slot
    let done = false;
    const waiting = d.run(write([])).then(() => (done = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(done).toBe(false);
    release();
    await Promise.all([holding, waiting]);
    expect(done).toBe(true);
  });
});

test('a unit has one key and one folder spelling, converted both ways', () => {
  const units: Unit[] = [templateUnit('quick-fix'), roleUnit('reviewer')];
  expect(units.map(unitKey)).toEqual(['template:quick-fix', 'role:reviewer']);
  expect(units.map((u) => unitOfFolder(folderOf(u.kind), u.name))).toEqual(units);
});
