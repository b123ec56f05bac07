import { DeskError } from '../../errors.js';
import type { ProposalSummary } from '../../schema/proposals.js';
import type { LibraryLogger } from '../context.js';
import type { FaultHook } from '../disk/fs-safe.js';
import { etagOf, sha256Hex } from '../disk/markers.js';
import type { ProposalSaveOptions, ProposalStore } from '../records-contract.js';
import type { Library, WriteOptions } from '../types.js';
import { type ProposalChange, proposalAnnouncer } from './proposal-announce.js';
import { whoIs } from './asker.js';
import { createRate, DEFAULT_PROPOSALS_PER_HOUR, takeAllowance } from './rate-limit.js';
import { PROPOSAL_RECORDS } from './proposal-files.js';
import { openRecordIndex } from './record-index.js';
import { EDITED_NOTE, type ProposalRecord, requestProblems, summaryOf } from './proposal-record.js';
import { withHeaderName } from './proposal-rename.js';
import { DEFAULT_DECIDED_KEEP } from './retention.js';
import { openWaiters, readWhenDecided, type Waiters } from './waiters.js';

export interface ProposalStoreOptions {
  library: Library;
  /** pino-compatible. Default: logs nothing. */
  logger?: LibraryLogger;
  /** Clock in ms, for ids and times. Default: Date.now. */
  now?: () => number;
  /** Test hook before every file-system step of a write, as openLibrary's. Default: none. */
  faults?: FaultHook;
  /** How many may wait for a decision; the next is too_many_proposals. Default: 500. */
  maxPending?: number;
  /** Creates one person (else one client address) may make an hour; 0: no limit. Default: 120 (DESK_PROPOSALS_PER_HOUR). */
  perHour?: number;
  /** How many decided proposals stay in `proposals/`, the newest by the team's rule (retention.ts); the rest are removed. Default: 1000. */
  decidedKeep?: number;
  /**
   * Told after each create and decision, and when a sync brings a proposal
   * new to this desk or decided on another, just after the event the store
   * publishes on `library.events` (announce.ts). Default: none.
   */
  onChange?: (kind: ProposalChange, p: ProposalSummary) => void;
  /** The waits for a decision (`getWhenDecided`), shared with the launch drafts' so one bound holds for both. Default: its own. */
  waiters?: Waiters;
}

export { EDITED_NOTE } from './proposal-record.js';
export type { ProposalSaveOptions, ProposalStore } from '../records-contract.js';

const silent: LibraryLogger = { info() {}, warn() {}, error() {} };

/**
 * The proposals a conductor makes and the operator decides (docs/api.md,
 * Proposals), kept one file each under `proposals/` in the library root.
 *
 * The folder is read once, at the first call: the root lock makes this
 * process its only writer, and a sync, the one other, tells the store which
 * records it wrote (library.syncFiles), which are read again — so the index
 * it keeps (each proposal's summary; record-index.ts, shared with launch
 * drafts) stays true, the pending count costs nothing, and the list reads
 * no file.
 * A file in `proposals/` that is not a record the service wrote — a link, a
 * FIFO, a folder, one over the cap, torn or hand-made JSON — is logged once
 * and skipped, never followed, waited on or answered as a 500.
 *
 * A decision reads top to bottom (`save`, `dismiss`): the proposal found,
 * its preconditions (pending; for a save, If-Match and If-None-Match, which
 * the template save checks against what loads), the template saved through
 * `library.saveTemplate` (the library's one write pipeline, writes.ts), the
 * record written, its history commit, its event (announce.ts), the decided
 * records past the kept count removed (retention.ts), the answer.
 *
 * A save never lies about what landed. Before the template save the record
 * is written with `saving: {name, etag}`, the intent (committed to nothing:
 * it is bookkeeping), and after it the record is written `saved`. Should the
 * process die between the two, the next start finds the intent: when the
 * name's current ETag is the intended one, the template was saved from the
 * proposal and the record becomes `saved` (and is committed then);
 * otherwise nothing landed and it stays pending. A failed save (412, 422)
 * drops the intent again.
 */
export function openProposalStore(o: ProposalStoreOptions): ProposalStore {
  const { library } = o;
  const logger = o.logger ?? silent;
  const now = o.now ?? Date.now;
  const max = o.maxPending ?? 500;
  const waiters = o.waiters ?? openWaiters();
  const perHour = o.perHour ?? DEFAULT_PROPOSALS_PER_HOUR;
  // in memory, bounded (rate-limit.ts)
  const rate = createRate({ perHour, now });
  // a decision, here or synced from another desk, ends the waits on it
  const announce = proposalAnnouncer(library, (kind, p) => {
    if (kind === 'decided') waiters.wake(p.id);
    o.onChange?.(kind, p);
  });
  const index = openRecordIndex(PROPOSAL_RECORDS, {
    library,
    logger,
    faults: o.faults,
    keep: o.decidedKeep ?? DEFAULT_DECIDED_KEEP,
    async loaded(rec) {
      if (!rec.saving) return;
      await finishSave(rec).catch((e: unknown) => logger.error({ id: rec.id, err: (e as Error).message }, 'could not finish an interrupted proposal save'));
    },
    synced(id, before, after) {
      // removed: its waits end with what is on disk now (nothing)
      if (!after) waiters.wake(id);
      if (after && before?.status !== after.status) announce.synced(after.status === 'pending' ? 'created' : 'decided', after);
    },
  });
  const { ready, serial } = index;

  const iso = () => new Date(now()).toISOString();

  async function read(id: string): Promise<ProposalRecord | null> {
    const rec = await index.read(id);
    if (!rec) return null;
    // a save between its template write and its record write (now, or cut by a crash): shown as it landed
    const view = await landed(rec);
    if (view) index.set(summaryOf(view));
    return view ?? rec;
  }

  /** The record as saved when its intent's template is what loads under that name now (the rule above), else null. */
  async function landed(rec: ProposalRecord): Promise<ProposalRecord | null> {
    const s = rec.saving;
    if (!s || rec.status !== 'pending') return null;
    const current = await library.getTemplate(s.name);
    if (current?.etag !== s.etag) return null;
    return { ...rec, status: 'saved', decided_at: s.at, decided_by: s.by, saving: null, saved_as: s.name, etag: s.etag, replaced: s.replaced, ...decision(s.edited) };
  }

  /** A save the last run did not finish recording (the rule above). */
  async function finishSave(rec: ProposalRecord): Promise<void> {
    const s = rec.saving!;
    const next = (await landed(rec)) ?? { ...rec, saving: null };
    const done = next.status === 'saved';
    try {
      await index.write(next);
      announce.finished(summaryOf(next));
      logger.warn({ id: rec.id, name: s.name, landed: done }, 'finished a proposal save interrupted before the last stop');
    } catch (e) {
      // a read-only root: the record stays as it is, and is shown as it will be once written
      index.set(summaryOf(next));
      logger.warn({ id: rec.id, err: (e as Error).message }, 'could not record an interrupted proposal save');
    }
  }

  /** A save's decision: whether the operator's edit was saved, said as a field and, for the conductor reading notes, as the note. */
  const decision = (edited: boolean) => (edited ? { edited, note: EDITED_NOTE } : { edited });

  async function undecided(id: string): Promise<ProposalRecord> {
    const rec = await read(id);
    if (!rec) throw new DeskError('not_found', `no proposal ${id}`);
    if (rec.status !== 'pending') throw new DeskError('already_decided', `proposal ${id} is already ${rec.status}`);
    return rec;
  }

  /** A decision's record is on disk (or, for a save whose record write failed, its intent says it): its commit and event, one log line. */
  async function decided(rec: ProposalRecord): Promise<ProposalRecord> {
    announce.written('decided', summaryOf(rec));
    logger.info({ id: rec.id, status: rec.status, name: rec.saved_as ?? rec.name }, 'proposal decided');
    // one more decided: the oldest past the kept count leaves (after the decision's own commit)
    await index.prune();
    return rec;
  }

  /** The save's options: with neither precondition, create-only — a proposal replaces a template only when the ETag of what it replaces is sent. */
  function saveOptions(opts: ProposalSaveOptions): WriteOptions {
    const w: WriteOptions = {};
    if (opts.ifMatch !== undefined) w.ifMatch = opts.ifMatch;
    if (opts.ifNoneMatch !== undefined) w.ifNoneMatch = opts.ifNoneMatch;
    if (w.ifMatch === undefined && w.ifNoneMatch === undefined) w.ifNoneMatch = '*';
    return w;
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
      return read(id);
    },
    async getWhenDecided(id, ms, signal) {
      await ready();
      const rec = await readWhenDecided(waiters, id, ms, signal, async () => (await read(id)) ?? { status: 'gone' as const });
      return 'id' in rec ? rec : null;
    },
    async create(p, asker = null) {
      index.writable();
      // every create asked counts, kept or refused: the allowance bounds the work a client makes, not only what is kept
      if (asker) takeAllowance(rate, asker, perHour, 'proposals');
      const problems = requestProblems(p.purpose, p.source);
      if (problems.length) throw new DeskError('invalid_proposal', 'the proposal is not well formed; nothing was kept', { problems });
      return serial(async () => {
        const count = index.pending();
        if (count >= max) throw new DeskError('too_many_proposals', `${count} proposals wait for a decision; save or dismiss some first`);
        const t = now();
        const rec: ProposalRecord = {
          v: 1,
          id: index.newId(t),
          status: 'pending',
          name: p.name,
          purpose: p.purpose.trim(),
          from: asker?.person ?? p.from ?? null,
          created_at: new Date(t).toISOString(),
          decided_at: null,
          saved_as: null,
          etag: null,
          note: null,
          edited: false,
          decided_by: null,
          source: p.source,
          saving: null,
          replaced: null,
        };
        await index.write(rec);
        announce.written('created', summaryOf(rec), whoIs(asker));
        logger.info({ id: rec.id, name: p.name }, 'proposal kept');
        return rec;
      });
    },
    async save(id, opts, asker = null) {
      index.writable();
      return serial(async () => {
        // the proposal, still pending
        const rec = await undecided(id);
        // under another name, the header's name follows (else the save's validator refuses it: name.mismatch)
        const name = opts.name ?? rec.name;
        const text = opts.source ?? rec.source;
        const edited = text !== rec.source;
        const bytes = name === rec.name ? text : (withHeaderName(text, name) ?? text);
        const at = iso();
        const by = whoIs(asker);
        // what loads under that name now, which the save replaces; the save's own If-Match holds it to what the operator saw
        const before = await library.getTemplate(name);
        const replaced = before && { etag: before.etag, state: before.state };
        // the intent, so a crash from here on is finished right at the next start (above)
        await index.write({ ...rec, saving: { name, etag: etagOf(sha256Hex(bytes)), at, edited, by, replaced } });
        // the template save, with its preconditions, validation, commit and event; its refusals pass through
        let etag: string;
        try {
          const proposal = { id: rec.id, edited, by: rec.from };
          etag = (await library.saveTemplate(name, bytes, { ...saveOptions(opts), proposal, ...(by !== null ? { who: by } : {}) })).etag;
        } catch (e) {
          // nothing landed: drop the intent (should this fail too, the next start drops it)
          await index.write(rec).catch(() => {});
          throw e;
        }
        // the record written saved
        const done: ProposalRecord = { ...rec, status: 'saved', decided_at: at, decided_by: by, saved_as: name, etag, saving: null, replaced, ...decision(edited) };
        try {
          await index.write(done);
        } catch (e) {
          // the template landed, so the proposal is saved: the intent on disk says so to reads and the next start
          index.set(summaryOf(done));
          logger.error({ id, err: (e as Error).message }, 'a proposal save landed but its record was not written; the intent finishes it');
        }
        // its commit and event, then the answer
        return decided(done);
      });
    },
    async dismiss(id, note, asker = null) {
      index.writable();
      return serial(async () => {
        // the proposal, still pending
        const rec = await undecided(id);
        // the record written dismissed (no template is saved)
        const done: ProposalRecord = { ...rec, status: 'dismissed', decided_at: iso(), decided_by: whoIs(asker), note, saving: null };
        await index.write(done);
        // its commit and event, then the answer
        return decided(done);
      });
    },
  };
}
