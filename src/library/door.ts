import type { LibraryContext, LibraryLogger, WriteGuard } from './context.js';
import { type FsContext, lstatSyncOrNull, safeDirSync } from './disk/fs-safe.js';
import { templateIntentFile } from './disk/intents.js';
import { recoverRole, recoverTemplate } from './disk/recovery.js';
import type { DeskEventMap, DeskEventType, EventBus } from './events/bus.js';
import type { Recorder } from './history/recorder.js';
import { checkRoleName, checkTemplateName, TEMPLATES } from './layout.js';
import type { KeyedQueue } from './queue.js';
import { folderOf, type Unit, type UnitKey, unitKey } from './unit.js';

/**
 * The one door for writing a name (docs/architecture.md, "The one door";
 * docs/history.md, "How a write becomes a commit"). Every write of a
 * template or a role — a save, reset, delete, restore, duplicate,
 * acknowledge, a proposal's save, each step of an upgrade, sync's take and
 * keep and a round's per-name writes — is a `Write` run through it, and the
 * door runs the steps in this order, each a function below:
 *
 *  0. the name checked, the refusals that need no file, the root taken
 *  1. the body validated (an invalid body is 422 whatever the preconditions say)
 *  2. the name's slot: one write of a name at a time
 *  3. a change found on disk committed first (never for a diverged name)
 *  4. an intent a crash left recovered
 *  5. what stands read
 *  6. the caller's preconditions (If-Match, create-only, state)
 *  7. the file steps (intent, files, markers, kept base, flushes); if one
 *     fails, the intent resolved and what landed decides the answer
 *  8. a diverged mark settled: the operator chose
 *  9. the history job queued with the bytes just written
 * 10. the log line
 * 11. the event
 * 12. the answer
 */

/** What a write needs, and nothing more: not the readers' caches, clock or catalogue. */
export interface DoorContext {
  queue: KeyedQueue;
  /** the root a write may use; throws no_library_root, library_unwritable, or when closed */
  writable(): FsContext;
  recorder: Recorder;
  events: EventBus;
  logger: LibraryLogger;
  /** whether a sync left the name diverged: its copy is undecided */
  diverged(u: Unit): boolean;
  /** a write through the service settles a diverged name: the operator chose */
  settleDiverged(u: Unit): void;
}

/** One write as its caller describes it. The door checks the name and runs the rest. */
export interface Write<S, A> {
  unit: Unit;
  /** step 0: the refusals that need no file (read_only, not_shipped, not_custom, a bad note) */
  refuse?(): void;
  /** step 1: the body validated; throws the 422 */
  validate?(): void;
  /** step 5: what stands now, after steps 3 and 4 */
  standing(fs: FsContext): S | Promise<S>;
  /** step 6: throws when the caller's preconditions fail against what stands */
  preconditions?(before: S): void;
  /** step 7: the file steps, or null when nothing needs writing */
  files(fs: FsContext, before: S): FileSteps | null;
  /** steps 9–12: what the write became, read once its files stand */
  after(before: S): After<A>;
}

/** File steps whose failure is decided by what landed (step 7). */
export const fileSteps = (run: () => Promise<unknown>, landed: () => boolean): FileSteps => ({ run, landed });

export interface FileSteps {
  run(): Promise<unknown>;
  /**
   * Read after a step failed and the name's intent was resolved: whether the
   * write passed its commit point. Absent: a failure is the caller's as it is
   * (a sync round stops on it, docs/history.md "What survives a crash").
   */
  landed?(): boolean | Promise<boolean>;
}

/** A write after its files: its answer and what history, the log and the events are told. */
export interface After<A> {
  answer: A;
  /** step 9: the commit's subject; null when nothing was written and nothing is committed */
  subject: string | null;
  who: string | null;
  /** step 10 */
  log?: { obj: object; msg: string };
  /** step 11 */
  event?: { [K in DeskEventType]: { type: K; data: DeskEventMap[K] } }[DeskEventType];
}

/**
 * The steps a caller may switch off, each for one reason. Every step not
 * named here always runs. Default: all on.
 */
export interface DoorSwitches {
  /**
   * Step 2 `held`: the caller holds the slot already. An upgrade takes its
   * names' slots one inside the other, in name order, and holds them all
   * until its one commit is queued (upgrade/apply.ts).
   */
  slot?: 'take' | 'held';
  /**
   * Step 3 off: a sync round looks for a change on disk only where its base
   * says the desk's copy is not in history yet (sync/round.ts), and a
   * decision on a diverged name never does (its copy is undecided).
   */
  found?: boolean;
  /**
   * Step 8 off: sync keeps its diverged marks itself — a round sets them, a
   * person's decision clears them through sync's state (sync/sync.ts).
   */
  settle?: boolean;
  /**
   * Step 9. `own` (default): the write's own commit. A function: the name's
   * files go into the caller's commit instead (a round's one merge commit,
   * RoundRecord.step). `later`: the caller commits every path at once after
   * its last name (an upgrade's one commit, after its batch landed).
   */
  commit?: 'own' | 'later' | ((key: UnitKey) => void);
  /**
   * Steps 10 and 11 off: a round publishes once per round (events/watch.ts
   * relists after it), an upgrade logs one line and publishes one
   * `library.upgraded` for all its names.
   */
  announce?: boolean;
}

export interface Door {
  run<S, A>(w: Write<S, A>, switches?: DoorSwitches): Promise<A>;
  /** The name's slot alone, for a read that must not interleave with a write (sync's `own`) or a caller that holds several (an upgrade). */
  slot<T>(u: Unit, task: () => Promise<T>): Promise<T>;
  /** Step 7's failure handling, for files a caller landed after the slot's own steps (an upgrade's batch). */
  runFiles(fs: FsContext, u: Unit, steps: FileSteps): Promise<void>;
}

/** Step 0's name check: before any path is built from it. */
function checkName(u: Unit): void {
  if (u.kind === 'template') checkTemplateName(u.name);
  else checkRoleName(u.name);
}

/** Whether a template's intent is on disk: one synchronous lstat, so an upgrade's step does not queue behind its batch's flushes. */
function templateIntentLeft(fs: FsContext, name: string): boolean {
  const dir = safeDirSync(fs, [TEMPLATES])?.dir;
  return dir !== undefined && lstatSyncOrNull(`${dir}/${templateIntentFile(name)}`) !== null;
}

/** Step 4: an intent a crash (or a failed step) left is finished or rolled back (disk/recovery.ts). */
async function recoverIntent(fs: FsContext, u: Unit): Promise<void> {
  if (u.kind === 'role') await recoverRole(fs, u.name);
  else if (templateIntentLeft(fs, u.name)) await recoverTemplate(fs, u.name);
}

export function writeDoor(dc: DoorContext): Door {
  /** Step 3. A diverged name's copy differs from HEAD (which holds the remote's version) until a write decides it. */
  function foundOnDisk(u: Unit, sw: DoorSwitches): void {
    if (sw.found !== false && !dc.diverged(u)) dc.recorder.found(unitKey(u));
  }

  /**
   * Step 7. If a file step fails, the name's intent is resolved straight
   * away and the answer follows what is now on disk: a write that passed its
   * commit point succeeded (the rest is finished here or at the next start),
   * one that did not changed nothing and reports the failure.
   */
  async function runFiles(fs: FsContext, u: Unit, steps: FileSteps): Promise<void> {
    try {
      await steps.run();
    } catch (e) {
      if (!steps.landed) throw e;
      await recoverIntent(fs, u).catch(() => {});
      if (await Promise.resolve().then(steps.landed).catch(() => false)) {
        dc.logger.warn({ name: u.name, kind: u.kind, code: (e as { code?: string }).code }, 'write landed; its last steps finish at the next start');
        return;
      }
      throw e;
    }
  }

  /** Step 8. */
  function settleMark(u: Unit, sw: DoorSwitches): void {
    if (sw.settle !== false && dc.diverged(u)) dc.settleDiverged(u);
  }

  /** Step 9: the job holds the bytes as they are now, read inside the slot; the answer never waits for git. */
  function historyJob(u: Unit, l: After<unknown>, sw: DoorSwitches): void {
    if (l.subject === null || sw.commit === 'later') return;
    if (typeof sw.commit === 'function') sw.commit(unitKey(u));
    else dc.recorder.record(unitKey(u), l.subject, l.who);
  }

  /** Steps 10 and 11. */
  function announce(l: After<unknown>, sw: DoorSwitches): void {
    if (sw.announce === false) return;
    if (l.log) dc.logger.info(l.log.obj, l.log.msg);
    if (l.event) dc.events.publish(l.event.type, l.event.data as never);
  }

  async function inSlot<S, A>(fs: FsContext, w: Write<S, A>, sw: DoorSwitches): Promise<A> {
    foundOnDisk(w.unit, sw);
    await recoverIntent(fs, w.unit);
    const before = await w.standing(fs);
    w.preconditions?.(before);
    const steps = w.files(fs, before);
    if (steps) await runFiles(fs, w.unit, steps);
    settleMark(w.unit, sw);
    const l = w.after(before);
    historyJob(w.unit, l, sw);
    announce(l, sw);
    return l.answer;
  }

  const slot = <T>(u: Unit, task: () => Promise<T>): Promise<T> => dc.queue.run(unitKey(u), task);

  return {
    async run(w, sw = {}) {
      checkName(w.unit);
      w.refuse?.();
      const fs = dc.writable();
      w.validate?.();
      return sw.slot === 'held' ? inSlot(fs, w, sw) : slot(w.unit, () => inSlot(fs, w, sw));
    },
    slot,
    runFiles,
  };
}

/**
 * The library's one door, over its context: the diverged marks are read
 * from it at each write (a sync replaces them whole), the rest is the
 * guard's and history's.
 */
export function openDoor(ctx: LibraryContext, guard: WriteGuard, recorder: Recorder, events: EventBus, settleDiverged: (u: Unit) => void): Door {
  return writeDoor({
    queue: guard.queue,
    writable: () => guard.writable(),
    recorder,
    events,
    logger: ctx.logger,
    diverged: (u) => ctx.diverged[folderOf(u.kind)].has(u.name),
    settleDiverged,
  });
}
