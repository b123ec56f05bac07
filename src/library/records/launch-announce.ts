import type { LaunchSummary } from '../../schema/launches.js';
import { launchRecord, rel } from '../layout.js';
import type { Library } from '../types.js';

/** What a record on disk says: drafted, refreshed onto a new template version, or decided. */
export type LaunchChange = 'drafted' | 'refreshed' | 'decided';

export interface LaunchAnnouncer {
  /** a record this store wrote is on disk: its commit, then its event; `who`: who made this change (else the decider, `decided_by`) */
  written(kind: LaunchChange, l: LaunchSummary, who?: string | null): void;
  /** a record a sync wrote: the round's commit holds it, so its event only */
  synced(kind: LaunchChange, l: LaunchSummary): void;
}

/** `launch <id> of <template>` when drafted, `… refreshed` onto a new version, `launch <id> approved` / `dismissed` / `withdrawn` (docs/history.md, Commits). */
export function commitMessage(kind: LaunchChange, l: LaunchSummary): string {
  if (kind === 'drafted') return `launch ${l.id} of ${l.template}`;
  if (kind === 'refreshed') return `launch ${l.id} of ${l.template} refreshed`;
  return `launch ${l.id} ${l.status}`;
}

/**
 * What follows a draft's record on disk (docs/api.md, Launches; docs/history.md):
 * its own commit, then `launch.drafted` or `launch.decided` on the
 * library's bus (a refresh tells no one: the draft is still the one drafted,
 * and the page reads it again), then `told`. A stand-in library may have
 * neither history nor a bus; then there is nothing to commit or tell.
 */
export function launchAnnouncer(library: Library, told?: (kind: LaunchChange, l: LaunchSummary) => void): LaunchAnnouncer {
  const events = library.events as Library['events'] | undefined;
  const history = library.history as Library['history'] | undefined;
  const tell = (kind: LaunchChange, l: LaunchSummary) => {
    if (kind !== 'refreshed') {
      const told = { id: l.id, status: l.status, template: l.template, etag: l.etag, note: l.decision_note };
      // a decision says who decided (docs/api.md, Events)
      events?.publish(kind === 'drafted' ? 'launch.drafted' : 'launch.decided', kind === 'drafted' ? told : { ...told, who: l.decided_by });
    }
    told?.(kind, l);
  };
  return {
    written(kind, l, by) {
      // a draft's commit is the drafter's, a refresh's the one approving, a decision's the decider's:
      // its author and `Who:` trailer (docs/history.md)
      const who = by ?? (kind === 'decided' ? l.decided_by : null);
      history?.commit({ paths: [rel(launchRecord(l.id))], message: commitMessage(kind, l), ...(who ? { who } : {}) });
      tell(kind, l);
    },
    synced: tell,
  };
}
