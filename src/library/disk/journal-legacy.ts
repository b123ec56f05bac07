import { existsSync, lstatSync, readdirSync, readFileSync, rmdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { COMMIT_PREFIX, gitDirOf, LANDING_ENTRY, LEGACY, ROUND_ENTRY, UPGRADE_ENTRY } from '../layout.js';
import { type EntryKind, writeEntryDurable } from './journal.js';

/**
 * The records the release before the journal kept under `.git/`
 * (layout.ts LEGACY): a round (`desk-round.json`), an upgrade
 * (`desk-upgrade.json`), queued commits (`desk-history/pending/*.json`) and
 * a batch's landing (`desk-history/landing.json`). Each held the same JSON a
 * journal entry's body holds now, so adopting one is moving it: written as
 * an entry, durably, and only then removed from where it was. A crash in
 * between adopts it again at the next start, under the same entry name.
 * The roll-forward (roll-forward.ts) then finishes them as any entry.
 */

/** The old file's JSON, or undefined when it is absent or not JSON (a torn one: the old release read it as none). */
function readOld(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}

const drop = (path: string): void => {
  try {
    unlinkSync(path);
  } catch {
    // gone already
  }
};

/** An old job's file name, `<at>-<pid>-<seq>.json`, as its entry's: the order of the queue kept. */
const OLD_JOB = /^([0-9]{15}-[0-9]{7}-[0-9]{9})\.json$/;
const entryOf = (old: string): string | null => {
  const m = OLD_JOB.exec(old);
  return m ? `${COMMIT_PREFIX}${m[1]}.intent` : null;
};

/** What was adopted, for the start's log line. */
export interface Adopted {
  round: boolean;
  upgrade: boolean;
  commits: number;
}

export async function adoptLegacy(root: string): Promise<Adopted> {
  const out: Adopted = { round: false, upgrade: false, commits: 0 };
  // only a repository history would use (history/repo.ts gitDirKind): a `.git` that is a link or a file is not looked into
  if (!lstatSync(gitDirOf(root), { throwIfNoEntry: false })?.isDirectory()) return out;
  const at = (segs: readonly string[]) => join(root, ...segs);
  const single = async (segs: readonly string[], name: string, kind: EntryKind): Promise<boolean> => {
    const v = readOld(at(segs));
    if (v !== undefined) await writeEntryDurable(root, name, kind, v);
    drop(at(segs));
    return v !== undefined;
  };
  out.upgrade = await single(LEGACY.upgrade, UPGRADE_ENTRY, 'upgrade');
  out.round = await single(LEGACY.round, ROUND_ENTRY, 'round');
  let olds: string[];
  try {
    olds = readdirSync(at(LEGACY.pending)).sort();
  } catch {
    olds = [];
  }
  for (const old of olds) {
    const name = entryOf(old);
    const v = name ? readOld(join(at(LEGACY.pending), old)) : undefined;
    if (name && v !== undefined) {
      await writeEntryDurable(root, name, 'commit', v);
      out.commits++;
    }
  }
  // the landing names the old files: it names their entries now, written after them and before any old one goes
  // a torn one is adopted too, naming nothing: it still says a batch was cut short (history/open.ts brings the index back)
  const landing = readOld(at(LEGACY.landing)) as { commit?: unknown; names?: unknown } | undefined;
  if (landing !== undefined || existsSync(at(LEGACY.landing))) {
    const names = Array.isArray(landing?.names) ? landing.names.map((n) => (typeof n === 'string' ? entryOf(n) : null)).filter((n) => n !== null) : [];
    await writeEntryDurable(root, LANDING_ENTRY, 'landing', { commit: landing?.commit ?? null, names });
  }
  drop(at(LEGACY.landing));
  for (const old of olds) drop(join(at(LEGACY.pending), old));
  for (const segs of [LEGACY.pending, LEGACY.pending.slice(0, -1)]) {
    try {
      rmdirSync(at(segs));
    } catch {
      // not there, or not empty (something not ours): left
    }
  }
  return out;
}
