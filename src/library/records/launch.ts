import { DeskError } from '../../errors.js';
import type { LaunchSummary } from '../../schema/launches.js';
import { checkedInputs } from '../../template/launch.js';
import { problem } from '../../template/problems.js';
import { ifMatchPasses } from '../disk/markers.js';
import { LAUNCHES, launchRecord } from '../layout.js';
import type { LaunchRefusal, LaunchStore, LaunchView } from '../records-contract.js';
import { type Asker, whoIs } from './asker.js';
import type { RecordKind } from './kind.js';
import { type Current, currentVersion, draftPreviews } from './launch-preview.js';
import { INPUTS_CAP, type LaunchRecord, parseRecord, RECORD_CAP, RECORD_FILE, summaryOf } from './launch-record.js';
import { DEFAULT_LAUNCHES_PER_HOUR } from './rate-limit.js';
import { openRecordCore, type RecordStoreOptions } from './store.js';

/** What a record on disk says besides its decision: drafted, or refreshed onto a new template version. */
export type LaunchChange = 'drafted' | 'refreshed' | 'decided';

export type LaunchStoreOptions = RecordStoreOptions<LaunchSummary, 'drafted' | 'refreshed'>;

export type { LaunchApproveOptions, LaunchRefusal, LaunchStore, LaunchView } from '../records-contract.js';

/** `launch <id> of <template>` when drafted, `… refreshed` onto a new version, `launch <id> approved` / `dismissed` / `withdrawn` (docs/history.md, Commits). */
export function commitMessage(change: LaunchChange, l: LaunchSummary): string {
  if (change === 'drafted') return `launch ${l.id} of ${l.template}`;
  if (change === 'refreshed') return `launch ${l.id} of ${l.template} refreshed`;
  return `launch ${l.id} ${l.status}`;
}

/**
 * A launch draft as the record store keeps it (kind.ts): `launches/`
 * (layout.ts); its events `launch.drafted` and `launch.decided`, a decision
 * saying who decided (docs/api.md, Events) — a refresh tells no one: the
 * draft is still the one drafted, and the page reads it again.
 */
export const LAUNCH_KIND: RecordKind<LaunchRecord, LaunchSummary, 'drafted' | 'refreshed'> = {
  folder: LAUNCHES,
  what: 'launch',
  plural: 'launch drafts',
  noun: 'launch draft',
  file: RECORD_FILE,
  cap: RECORD_CAP,
  path: launchRecord,
  parse: parseRecord,
  summary: summaryOf,
  about: (l) => ({ template: l.template }),
  created: 'drafted',
  commitMessage,
  event(change, l) {
    if (change === 'refreshed') return null;
    const told = { id: l.id, status: l.status, template: l.template, etag: l.etag, note: l.decision_note };
    return change === 'drafted' ? { type: 'launch.drafted', data: told } : { type: 'launch.decided', data: { ...told, who: l.decided_by } };
  },
  tooMany: (count) => new DeskError('too_many_launches', `${count} launch drafts wait for a decision; approve, dismiss or withdraw some first`),
  tooLarge(cap) {
    const p = problem('limit.size', `the draft with these inputs would be over the ${cap / 2 ** 20} MiB a draft's record may be; shorten them`, '/inputs');
    return new DeskError('invalid_launch', 'the launch draft is too large; nothing was kept', { problems: [p] });
  },
  perHour: DEFAULT_LAUNCHES_PER_HOUR,
};

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
 * Launches): the record store (store.ts) over the launch-draft kind above,
 * with its index, odd-file, retention, wait and sync rules. The desk starts
 * nothing: `approved` is the decision the conductor or the harness reads,
 * with the runs to start.
 *
 * A draft names the template version its preview was made on (`etag`, its
 * text kept as `source`), so what the operator approves is what they saw.
 * An approve on a template changed since refreshes the draft onto the
 * version loading now and is refused (409 `template_changed`, or 412 with a
 * stale If-Match), the refreshed draft in the answer; an approve with the
 * new ETag then succeeds.
 *
 * What a draft adds to the store: its preview on the version it names
 * (launch-preview.ts), the approve and its refusals, and who may withdraw.
 */
export function openLaunchStore(o: LaunchStoreOptions): LaunchStore {
  const { library } = o;
  const core = openRecordCore(LAUNCH_KIND, o);
  const { index, serial } = core;
  const previews = draftPreviews(library);

  async function viewOf(rec: LaunchRecord, current?: Current | null): Promise<LaunchView> {
    const now = current === undefined ? await currentVersion(library, rec.template) : current;
    const preview = previews.preview(await previews.check(rec, now), rec.inputs);
    return { rec, preview, current: now?.etag ?? null };
  }

  return {
    ...core.face((rec) => viewOf(rec)),
    async create(l, asker = null) {
      const check = async () => {
        await core.index.ready();
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
        return { current, given, preview };
      };
      const make = ({ current, given }: Awaited<ReturnType<typeof check>>, id: string, created_at: string): LaunchRecord => ({
        v: 1,
        id,
        status: 'pending',
        template: l.template,
        etag: current.etag,
        from: asker?.person ?? l.from ?? null,
        note: l.note ?? null,
        decision_note: null,
        created_at,
        decided_at: null,
        decided_by: null,
        inputs: checkedInputs(current.model!, given),
        source: current.source,
      });
      const { rec, checked } = await core.create(asker, check, make, ({ preview }) => ({ runs: preview.runs.length }));
      return { rec, preview: checked.preview, current: checked.current.etag };
    },
    async approve(id, opts = {}, asker = null) {
      const { ifMatch } = opts;
      index.writable();
      return serial(async (): Promise<LaunchView | LaunchRefusal> => {
        let rec = await core.undecided(id);
        const current = await currentVersion(library, rec.template);
        if (!current) {
          return { code: 'template_changed', detail: `${rec.template} no longer loads; the draft cannot be approved`, view: await viewOf(rec, null) };
        }
        if (current.etag !== rec.etag) {
          // refreshed onto the version loading now, so the operator approves what they see
          rec = { ...rec, etag: current.etag, source: current.source };
          await index.write(rec);
          core.announce.written('refreshed', summaryOf(rec), whoIs(asker));
          const view = await viewOf(rec, current);
          if (ifMatch === undefined) return { code: 'template_changed', detail: `${rec.template} changed since the draft; it is refreshed onto the version loading now, approve that`, view };
          if (!ifMatchPasses(ifMatch, current.etag)) return { code: 'precondition_failed', detail: `${rec.template} changed since the draft; it is refreshed onto the version loading now`, view };
        } else if (!ifMatchPasses(ifMatch, rec.etag)) {
          return { code: 'precondition_failed', detail: `the draft is on ${rec.etag}, not the version sent`, view: await viewOf(rec, current) };
        }
        const view = await viewOf(rec, current);
        if (!current.valid) return { code: 'template_invalid_for_launch', detail: `${rec.template} is not valid; fix its problems before launching it`, view };
        if (!view.preview.ok) return { code: 'invalid_launch', detail: 'the launch inputs do not check on this version', view };
        const done = await core.decide(rec, 'approved', whoIs(asker), { decision_note: opts.note ?? null });
        return { ...view, rec: done };
      });
    },
    async dismiss(id, note, asker = null) {
      index.writable();
      return serial(async () => viewOf(await core.decide(await core.undecided(id), 'dismissed', whoIs(asker), { decision_note: note })));
    },
    async withdraw(id, asker = null) {
      index.writable();
      return serial(async () => {
        const rec = await core.undecided(id);
        mayWithdraw(rec, asker);
        return viewOf(await core.decide(rec, 'withdrawn', whoIs(asker)));
      });
    },
  };
}
