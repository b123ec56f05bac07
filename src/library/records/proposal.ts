import { DeskError } from '../../errors.js';
import type { ProposalEvent } from '../../schema/events.js';
import type { ProposalSummary } from '../../schema/proposals.js';
import { etagOf, sha256Hex } from '../disk/markers.js';
import { PROPOSALS, proposalRecord } from '../layout.js';
import type { ProposalSaveOptions, ProposalStore } from '../records-contract.js';
import type { WriteOptions } from '../entries.js';
import { whoIs } from './asker.js';
import type { RecordKind } from './kind.js';
import { EDITED_NOTE, parseRecord, type ProposalRecord, RECORD_CAP, RECORD_FILE, requestProblems, summaryOf } from './proposal-record.js';
import { withHeaderName } from './proposal-rename.js';
import { DEFAULT_PROPOSALS_PER_HOUR } from './rate-limit.js';
import { openRecordCore, type RecordStoreOptions } from './store.js';

/** What a record on disk says besides its decision: kept (`created`). */
export type ProposalChange = 'created' | 'decided';

export type ProposalStoreOptions = RecordStoreOptions<ProposalSummary, 'created'>;

export { EDITED_NOTE } from './proposal-record.js';
export type { ProposalSaveOptions, ProposalStore } from '../records-contract.js';

/** A saved proposal is told under the name it was saved as, which the desk launches; a decision says whether the operator edited it, and who decided. */
export function eventData(p: ProposalSummary): ProposalEvent {
  const told = { id: p.id, status: p.status, name: p.saved_as ?? p.name, etag: p.etag, note: p.note };
  return p.status === 'pending' ? told : { ...told, edited: p.edited, who: p.decided_by };
}

/**
 * A proposal as the record store keeps it (kind.ts): `proposals/` (layout.ts);
 * its commits `proposal <id> for <name>` while pending, `proposal <id> saved`
 * / `dismissed` once decided (docs/history.md, Commits); its events
 * `proposal.created` and `proposal.decided` — a proposal saved into a
 * template is that save's commit too, made by the save.
 */
export const PROPOSAL_KIND: RecordKind<ProposalRecord, ProposalSummary, 'created'> = {
  folder: PROPOSALS,
  what: 'proposal',
  plural: 'proposals',
  noun: 'proposal',
  file: RECORD_FILE,
  cap: RECORD_CAP,
  path: proposalRecord,
  parse: parseRecord,
  summary: summaryOf,
  about: (p) => ({ name: p.saved_as ?? p.name }),
  created: 'created',
  commitMessage: (_, p) => (p.status === 'pending' ? `proposal ${p.id} for ${p.name}` : `proposal ${p.id} ${p.status}`),
  event: (change, p) => ({ type: change === 'created' ? 'proposal.created' : 'proposal.decided', data: eventData(p) }),
  tooMany: (count) => new DeskError('too_many_proposals', `${count} proposals wait for a decision; save or dismiss some first`),
  perHour: DEFAULT_PROPOSALS_PER_HOUR,
};

/**
 * The proposals a conductor makes and the operator decides (docs/api.md,
 * Proposals): the record store (store.ts) over the proposal kind above. The
 * store reads `proposals/` once and follows what a sync writes
 * (record-index.ts); a file there that is not a record the service wrote —
 * a link, a FIFO, a folder, one over the cap, torn or hand-made JSON — is
 * logged once and skipped, never followed, waited on or answered as a 500.
 *
 * A decision reads top to bottom (`save`, `dismiss`): the proposal found,
 * its preconditions (pending; for a save, If-Match and If-None-Match, which
 * the template save checks against what loads), the template saved through
 * `library.saveTemplate` (the library's one write pipeline, writes.ts), the
 * record written, its history commit, its event (announce.ts), the decided
 * records past the kept count removed (retention.ts), the answer. The save
 * is a proposal's own; the rest is the store's.
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
  const core = openRecordCore(PROPOSAL_KIND, o, {
    async loaded(rec) {
      if (!rec.saving) return;
      await finishSave(rec).catch((e: unknown) => core.logger.error({ id: rec.id, err: (e as Error).message }, 'could not finish an interrupted proposal save'));
    },
    // a save between its template write and its record write (now, or cut by a crash): shown as it landed
    async landed(rec) {
      const view = await landed(rec);
      if (view) core.index.set(summaryOf(view));
      return view ?? rec;
    },
  });
  const { index, logger, serial, iso } = core;

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
      core.announce.committed(summaryOf(next));
      logger.warn({ id: rec.id, name: s.name, landed: done }, 'finished a proposal save interrupted before the last stop');
    } catch (e) {
      // a read-only root: the record stays as it is, and is shown as it will be once written
      index.set(summaryOf(next));
      logger.warn({ id: rec.id, err: (e as Error).message }, 'could not record an interrupted proposal save');
    }
  }

  /** A save's decision: whether the operator's edit was saved, said as a field and, for the conductor reading notes, as the note. */
  const decision = (edited: boolean) => (edited ? { edited, note: EDITED_NOTE } : { edited });

  /** The save's options: with neither precondition, create-only — a proposal replaces a template only when the ETag of what it replaces is sent. */
  function saveOptions(opts: ProposalSaveOptions): WriteOptions {
    const w: WriteOptions = {};
    if (opts.ifMatch !== undefined) w.ifMatch = opts.ifMatch;
    if (opts.ifNoneMatch !== undefined) w.ifNoneMatch = opts.ifNoneMatch;
    if (w.ifMatch === undefined && w.ifNoneMatch === undefined) w.ifNoneMatch = '*';
    return w;
  }

  return {
    ...core.face((rec) => rec),
    async create(p, asker = null) {
      const check = () => {
        const problems = requestProblems(p.purpose, p.source);
        if (problems.length) throw new DeskError('invalid_proposal', 'the proposal is not well formed; nothing was kept', { problems });
      };
      const made = await core.create(asker, check, (_, id, created_at): ProposalRecord => ({
        v: 1,
        id,
        status: 'pending',
        name: p.name,
        purpose: p.purpose.trim(),
        from: asker?.person ?? p.from ?? null,
        created_at,
        decided_at: null,
        saved_as: null,
        etag: null,
        note: null,
        edited: false,
        decided_by: null,
        source: p.source,
        saving: null,
        replaced: null,
      }));
      return made.rec;
    },
    async save(id, opts, asker = null) {
      index.writable();
      return serial(async () => {
        // the proposal, still pending
        const rec = await core.undecided(id);
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
        return core.decided(done);
      });
    },
    async dismiss(id, note, asker = null) {
      index.writable();
      // the record written dismissed (no template is saved), its commit and event, then the answer
      return serial(async () => core.decide(await core.undecided(id), 'dismissed', whoIs(asker), { note, saving: null }));
    },
  };
}
