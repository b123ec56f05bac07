/**
 * What the library's record stores answer (records.ts: `library.proposals`,
 * `library.launches`), apart from how they work, so the Library contract
 * (types.ts) can name them without importing the stores, which import it.
 */
import type { ErrorCode } from '../errors.js';
import type { LaunchCreate, LaunchSummary } from '../schema/launches.js';
import type { ProposalCreate, ProposalReplaced, ProposalSummary } from '../schema/proposals.js';
import type { previewLaunch } from '../template/launch.js';
import type { Problem } from '../template/problems.js';

/** The roles a person may hold, from the least to the most (docs/security.md, Users and roles). */
export type AskerRole = 'viewer' | 'conductor' | 'editor';

/**
 * Who asks a record store for something: the person when the desk knows
 * one, their role, and the client address (records/asker.ts).
 */
export interface Asker {
  /** the person's name (a user, the auth proxy's, `desk` for DESK_TOKEN); null on a desk that knows nobody */
  person: string | null;
  /** null on a desk that knows nobody: every client there may do everything */
  role: AskerRole | null;
  /** the client address */
  address: string;
}

/**
 * One proposal as it is kept: `proposals/<id>.json` under the library root,
 * one JSON object, written whole with the atomic writes. `saving` is the
 * save's intent (records/proposal.ts): the name and ETag it is about to
 * save, whether that is the operator's edit, who asked and what it
 * replaces, so a save a crash cut short is recorded as the one asked.
 */
export interface ProposalRecord extends ProposalSummary {
  v: 1;
  source: string;
  saving: { name: string; etag: string; at: string; edited: boolean; by: string | null; replaced: ProposalReplaced } | null;
}

/**
 * One launch draft as it is kept: `launches/<id>.json` under the library
 * root, one JSON object, written whole with the atomic writes. `source` is
 * the template's text at `etag`, the version the preview was made on, so a
 * draft shows — and, approved, starts — the runs of that version whatever
 * the library holds later.
 */
export interface LaunchRecord extends LaunchSummary {
  v: 1;
  inputs: Record<string, unknown>;
  source: string;
}

/**
 * A proposal's save: under its name or `name`; `source`, the text as the
 * operator edited it (the settings page's editor), saved instead of the
 * proposal's own, validated like any save. The decision then says the
 * operator edited it (`edited`, and EDITED_NOTE as its note), so the
 * conductor is told. `ifMatch`/`ifNoneMatch`: as a template save's (types.ts WriteOptions).
 */
export interface ProposalSaveOptions {
  ifMatch?: string | undefined;
  ifNoneMatch?: string | undefined;
  name?: string;
  source?: string;
}

/** What every record store answers alike (records/store.ts); `V`: one record as the kind answers it. */
export interface RecordStoreFace<S, V> {
  /** newest first */
  list(filter: 'pending' | 'decided' | 'all'): Promise<S[]>;
  pending(): Promise<number>;
  /** how many decided records the folder holds, and how many it keeps (DESK_DECIDED_KEEP) */
  keptDecided(): Promise<{ count: number; limit: number }>;
  /** null for an unknown id */
  get(id: string): Promise<V | null>;
  /** as get, but while pending waits up to `ms` for a decision (`signal`: the client went away; past the waiters' bound it answers at once) */
  getWhenDecided(id: string, ms: number, signal?: AbortSignal): Promise<V | null>;
  /** reads the folder once (done by the first call of anything else) and finishes what a crash left */
  ready(): Promise<void>;
  /** every wait answers now, with the record as it is, and later ones at once: the service stops */
  stopWaiting(): void;
  /** stops following the records a sync writes */
  close(): void;
}

export interface ProposalStore extends RecordStoreFace<ProposalSummary, ProposalRecord> {
  /**
   * `asker`: who proposes — their allowance is taken (too_many_requests, an
   * AllowanceSpent with `retryAfter`), and `from` is their name when the desk
   * knows one, whatever `p.from` says. Without one (a caller of its own), no allowance.
   */
  create(p: ProposalCreate, asker?: Asker | null): Promise<ProposalRecord>;
  /** saves through library.saveTemplate (its 412, 422 and the rest pass through); `name`: under another name; `asker`: who decides (`decided_by`, the commits' author) */
  save(id: string, opts: ProposalSaveOptions, asker?: Asker | null): Promise<ProposalRecord>;
  /** `asker`: who decides (the record's `decided_by`, its commit's author) */
  dismiss(id: string, note: string | null, asker?: Asker | null): Promise<ProposalRecord>;
}

/** A draft's preview (docs/api.md, Launches): the launch preview's on the version the draft names. */
export interface DraftPreview {
  ok: boolean;
  problems: Problem[];
  runs: ReturnType<typeof previewLaunch>['runs'];
}

/** A draft with its preview on the version it names, and the template's ETag now. */
export interface LaunchView {
  rec: LaunchRecord;
  preview: DraftPreview;
  current: string | null;
}

/** An approve that was refused: why, and the draft as it is now (refreshed when the template changed). */
export interface LaunchRefusal {
  code: ErrorCode;
  detail: string;
  view: LaunchView;
}

/** An approve's options: the draft's etag as the operator saw it, and a note for the conductor (`decision_note`). */
export interface LaunchApproveOptions {
  ifMatch?: string | undefined;
  note?: string | null | undefined;
}

export interface LaunchStore extends RecordStoreFace<LaunchSummary, LaunchView> {
  /** a kept draft; throws not_found, template_invalid_for_launch, invalid_launch, too_many_launches, too_many_requests; `asker` as for a proposal's create */
  create(l: LaunchCreate, asker?: Asker | null): Promise<LaunchView>;
  /** approved, or refused with the draft as it is now */
  approve(id: string, opts?: LaunchApproveOptions, asker?: Asker | null): Promise<LaunchView | LaunchRefusal>;
  /** `asker` here and above: who decides (the record's `decided_by`, its commit's author) */
  dismiss(id: string, note: string | null, asker?: Asker | null): Promise<LaunchView>;
  /** the conductor that drafted it withdraws it; an editor, or anyone on a desk that knows nobody, any draft (else forbidden) */
  withdraw(id: string, asker?: Asker | null): Promise<LaunchView>;
}
