import { DeskError } from '../../errors.js';
import type { LaunchSummary } from '../../schema/launches.js';
import { checkedInputs } from '../../template/launch.js';
import { problem } from '../../template/problems.js';
import type { LibraryLogger } from '../context.js';
import type { FaultHook } from '../disk/fs-safe.js';
import { ifMatchPasses } from '../disk/markers.js';
import { type Asker, whoIs } from './asker.js';
import { createRate, DEFAULT_LAUNCHES_PER_HOUR, takeAllowance } from './rate-limit.js';
import { openRecordIndex } from './record-index.js';
import { DEFAULT_DECIDED_KEEP } from './retention.js';
import { openWaiters, readWhenDecided, type Waiters } from './waiters.js';
import type { LaunchRefusal, LaunchStore, LaunchView } from '../records-contract.js';
import type { Library } from '../types.js';
import { type LaunchChange, launchAnnouncer } from './launch-announce.js';
import { LAUNCH_RECORDS } from './launch-files.js';
import { type Current, currentVersion, draftPreviews } from './launch-preview.js';
import { formatRecord, INPUTS_CAP, type LaunchRecord, RECORD_CAP, summaryOf } from './launch-record.js';

export interface LaunchStoreOptions {
  library: Library;
  /** pino-compatible. Default: logs nothing. */
  logger?: LibraryLogger;
  /** Clock in ms, for ids and times. Default: Date.now. */
  now?: () => number;
  /** Test hook before every file-system step of a write. Default: none. */
  faults?: FaultHook;
  /** How many may wait for a decision; the next is too_many_launches. Default: 500. */
  maxPending?: number;
  /** Drafts one person (else one client address) may make an hour; 0: no limit. Default: 120 (DESK_LAUNCHES_PER_HOUR). */
  perHour?: number;
  /** How many decided drafts stay in `launches/` (proposals/retention.ts). Default: 1000. */
  decidedKeep?: number;
  /** Told after each record written or synced, just after its event. Default: none. */
  onChange?: (kind: LaunchChange, l: LaunchSummary) => void;
  /** The waits for a decision (`getWhenDecided`), shared with the proposals' so one bound holds for both. Default: its own. */
  waiters?: Waiters;
}


export type { LaunchApproveOptions, LaunchRefusal, LaunchStore, LaunchView } from '../records-contract.js';

const silent: LibraryLogger = { info() {}, warn() {}, error() {} };

/**
 * A conductor withdraws only the drafts it made (`from` is its name, which
 * the store writes whatever the request says); an editor withdraws any, and
 * so does anyone on a desk that knows nobody (no role) or a caller of the
 * library's own (no asker). Anyone else is forbidden, and the draft stays.
 */
function mayWithdraw(rec: LaunchRecord, asker: Asker | null): void {
  if (!asker || asker.role === null || asker.role === 'editor') return;
  if (asker.role === 'conductor' && asker.person !== null && rec.from === asker.person) return;
  throw new DeskError('forbidden', `${asker.person ?? asker.address} did not draft ${rec.id}; a conductor withdraws only its own drafts, an editor any`, {
    needed_role: 'editor',
  });
}

export const isRefusal = (r: LaunchView | LaunchRefusal): r is LaunchRefusal => 'code' in r;

/**
 * The launches a conductor drafts and the operator decides (docs/api.md,
 * Launches), kept one file each under `launches/`, as proposals are under
 * `proposals/`, with the same index, odd-file, retention and sync rules
 * (proposals/record-index.ts). The desk starts nothing: `approved` is the decision the
 * conductor or the harness reads, with the runs to start.
 *
 * A draft names the template version its preview was made on (`etag`, its
 * text kept as `source`), so what the operator approves is what they saw.
 * An approve on a template changed since refreshes the draft onto the
 * version loading now and is refused (409 `template_changed`, or 412 with a
 * stale If-Match), the refreshed draft in the answer; an approve with the
 * new ETag then succeeds.
 *
 * A request may wait for a decision (`getWhenDecided`): a promise each
 * decision settles (proposals/waiters.ts), never a loop. It is settled as
 * soon as the decided record is on disk, before its commit and event: what
 * the waiter then reads is durable, and git has nothing to add to it.
 */
export function openLaunchStore(o: LaunchStoreOptions): LaunchStore {
  const { library } = o;
  const logger = o.logger ?? silent;
  const now = o.now ?? Date.now;
  const max = o.maxPending ?? 500;
  const waiters = o.waiters ?? openWaiters();
  const perHour = o.perHour ?? DEFAULT_LAUNCHES_PER_HOUR;
  // in memory, bounded (proposals/rate-limit.ts)
  const rate = createRate({ perHour, now });
  const announce = launchAnnouncer(library, o.onChange);
  const previews = draftPreviews(library);
  const index = openRecordIndex(LAUNCH_RECORDS, {
    library,
    logger,
    faults: o.faults,
    keep: o.decidedKeep ?? DEFAULT_DECIDED_KEEP,
    synced(id, before, after) {
      // removed, or decided on another desk: its waits end with what is on disk now
      if (after?.status !== 'pending') waiters.wake(id);
      if (after && before?.status !== after.status) announce.synced(after.status === 'pending' ? 'drafted' : 'decided', after);
    },
  });
  const { ready, serial } = index;

  const iso = () => new Date(now()).toISOString();

  async function viewOf(rec: LaunchRecord, current?: Current | null): Promise<LaunchView> {
    const now = current === undefined ? await currentVersion(library, rec.template) : current;
    const preview = previews.preview(await previews.check(rec, now), rec.inputs);
    return { rec, preview, current: now?.etag ?? null };
  }

  async function undecided(id: string): Promise<LaunchRecord> {
    const rec = await index.read(id);
    if (!rec) throw new DeskError('not_found', `no launch draft ${id}`);
    if (rec.status !== 'pending') throw new DeskError('already_decided', `launch draft ${id} is already ${rec.status}`);
    return rec;
  }

  async function decide(rec: LaunchRecord, status: LaunchRecord['status'], who: string | null, extra: Partial<LaunchRecord> = {}): Promise<LaunchRecord> {
    const done: LaunchRecord = { ...rec, ...extra, status, decided_at: iso(), decided_by: who };
    await index.write(done);
    // durable now: the waits answer at once (above), then the commit and the event
    waiters.wake(done.id);
    announce.written('decided', summaryOf(done));
    logger.info({ id: rec.id, status, template: rec.template }, 'launch draft decided');
    await index.prune();
    return done;
  }

  return {
    ready,
    close: () => index.close(),
    stopWaiting: () => waiters.close(),
    async pending() {
      await ready();
      return index.pending();
    },
    async keptDecided() {
      await ready();
      return index.keptDecided();
    },
    async list(filter) {
      await ready();
      return index.list(filter);
    },
    async get(id) {
      await ready();
      const rec = await index.read(id);
      return rec && viewOf(rec);
    },
    async getWhenDecided(id, ms, signal) {
      await ready();
      const rec = await readWhenDecided(waiters, id, ms, signal, async () => (await index.read(id)) ?? { status: 'gone' as const });
      return 'id' in rec ? viewOf(rec) : null;
    },
    async create(l, asker = null) {
      index.writable();
      // every draft asked counts, kept or refused: the allowance bounds the work a client makes, not only what is kept
      if (asker) takeAllowance(rate, asker, perHour, 'launch drafts');
      await ready();
      // the template as it loads now: unknown is 404, not valid is 409, as the launch preview answers
      const current = await currentVersion(library, l.template);
      if (!current) throw new DeskError('not_found', `no template named '${l.template}'`);
      if (!current.valid || !current.model) {
        throw new DeskError('template_invalid_for_launch', `${l.template} is not valid; fix its problems before launching it`, { problems: current.problems });
      }
      const given = l.inputs ?? {};
      // measured before any work on them: every draft is a record and a commit, kept in history for good
      const size = Buffer.byteLength(JSON.stringify(given), 'utf8');
      if (size > INPUTS_CAP) {
        const p = problem('limit.size', `the inputs are ${size} bytes as JSON; a draft's may be at most ${INPUTS_CAP / 1024} KiB: shorten them`, '/inputs');
        throw new DeskError('invalid_launch', 'the launch inputs are too large; nothing was kept', { problems: [p] });
      }
      const preview = previews.preview(current, given);
      if (!preview.ok) throw new DeskError('invalid_launch', 'the launch inputs do not check; nothing was kept', { problems: preview.problems });
      return serial(async () => {
        const count = index.pending();
        if (count >= max) throw new DeskError('too_many_launches', `${count} launch drafts wait for a decision; approve, dismiss or withdraw some first`);
        const t = now();
        const rec: LaunchRecord = {
          v: 1,
          id: index.newId(t),
          status: 'pending',
          template: l.template,
          etag: current.etag,
          from: asker?.person ?? l.from ?? null,
          note: l.note ?? null,
          decision_note: null,
          created_at: new Date(t).toISOString(),
          decided_at: null,
          decided_by: null,
          inputs: checkedInputs(current.model!, given),
          source: current.source,
        };
        // formatted once: measured against the cap, then written
        const text = formatRecord(rec);
        if (Buffer.byteLength(text, 'utf8') > RECORD_CAP) {
          const p = problem('limit.size', `the draft with these inputs would be over the ${RECORD_CAP / 2 ** 20} MiB a draft's record may be; shorten them`, '/inputs');
          throw new DeskError('invalid_launch', 'the launch draft is too large; nothing was kept', { problems: [p] });
        }
        await index.write(rec, text);
        announce.written('drafted', summaryOf(rec), whoIs(asker));
        logger.info({ id: rec.id, template: l.template, runs: preview.runs.length }, 'launch draft kept');
        return { rec, preview, current: current.etag };
      });
    },
    async approve(id, opts = {}, asker = null) {
      const { ifMatch } = opts;
      index.writable();
      return serial(async (): Promise<LaunchView | LaunchRefusal> => {
        let rec = await undecided(id);
        const current = await currentVersion(library, rec.template);
        if (!current) {
          return { code: 'template_changed', detail: `${rec.template} no longer loads; the draft cannot be approved`, view: await viewOf(rec, null) };
        }
        if (current.etag !== rec.etag) {
          // refreshed onto the version loading now, so the operator approves what they see
          rec = { ...rec, etag: current.etag, source: current.source };
          await index.write(rec);
          announce.written('refreshed', summaryOf(rec), whoIs(asker));
          const view = await viewOf(rec, current);
          if (ifMatch === undefined) return { code: 'template_changed', detail: `${rec.template} changed since the draft; it is refreshed onto the version loading now, approve that`, view };
          if (!ifMatchPasses(ifMatch, current.etag)) return { code: 'precondition_failed', detail: `${rec.template} changed since the draft; it is refreshed onto the version loading now`, view };
        } else if (!ifMatchPasses(ifMatch, rec.etag)) {
          return { code: 'precondition_failed', detail: `the draft is on ${rec.etag}, not the version sent`, view: await viewOf(rec, current) };
        }
        const view = await viewOf(rec, current);
        if (!current.valid) return { code: 'template_invalid_for_launch', detail: `${rec.template} is not valid; fix its problems before launching it`, view };
        if (!view.preview.ok) return { code: 'invalid_launch', detail: 'the launch inputs do not check on this version', view };
        const done = await decide(rec, 'approved', whoIs(asker), { decision_note: opts.note ?? null });
        return { ...view, rec: done };
      });
    },
    async dismiss(id, note, asker = null) {
      index.writable();
      return serial(async () => viewOf(await decide(await undecided(id), 'dismissed', whoIs(asker), { decision_note: note })));
    },
    async withdraw(id, asker = null) {
      index.writable();
      return serial(async () => {
        const rec = await undecided(id);
        mayWithdraw(rec, asker);
        return viewOf(await decide(rec, 'withdrawn', whoIs(asker)));
      });
    },
  };
}
