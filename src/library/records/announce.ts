import { rel } from '../layout.js';
import type { Library } from '../types.js';
import type { RecordKind } from './kind.js';
import type { Decidable } from './retention.js';

export interface RecordAnnouncer<S, C extends string> {
  /** a record the store wrote is on disk: its commit, then its event; `who`: who made this change (else the decider, `decided_by`) */
  written(change: C | 'decided', s: S, who?: string | null): void;
  /** a record written only to finish what a crash cut short: its commit; no one asked, so no event */
  committed(s: S): void;
  /** a record a sync wrote: the round's commit holds it, so its event only */
  synced(change: C | 'decided', s: S): void;
}

/**
 * What follows a record on disk (docs/history.md, docs/api.md Events): its
 * own commit, then the kind's event on the library's bus (kind.ts), then
 * `told`. A record's commit is the one who made the change — the creator,
 * the one whose approve refreshed a draft, the decider (`decided_by`) — its
 * author and `Who:` trailer (docs/history.md): the person when the desk
 * knows one, else the client address (authored then by DESK_AUTHOR).
 * A stand-in library (test/docs-api.test.ts) may have neither history nor a
 * bus; then there is nothing to commit or tell.
 */
export function recordAnnouncer<R extends { id: string }, S extends Decidable & { decided_by: string | null }, C extends string>(
  library: Library,
  kind: RecordKind<R, S, C>,
  told?: (change: C | 'decided', s: S) => void,
): RecordAnnouncer<S, C> {
  const events = library.events as Library['events'] | undefined;
  const history = library.history as Library['history'] | undefined;
  const commit = (change: C | 'decided', s: S, who: string | null) =>
    history?.commit({ paths: [rel(kind.path(s.id))], message: kind.commitMessage(change, s), ...(who ? { who } : {}) });
  const tell = (change: C | 'decided', s: S) => {
    const e = kind.event(change, s);
    if (e) events?.publish(e.type, e.data as never);
    told?.(change, s);
  };
  return {
    written(change, s, who) {
      commit(change, s, who ?? s.decided_by);
      tell(change, s);
    },
    committed: (s) => commit(s.status === 'pending' ? kind.created : 'decided', s, s.decided_by),
    synced: tell,
  };
}
