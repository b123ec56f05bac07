import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { writeDurable } from '../disk/atomic-write.js';
import { readEntry, removeEntry, writeEntryDurable } from '../disk/journal.js';
import { ROUND_ENTRY } from '../layout.js';
import { isRoleName, isTemplateName } from '../../template/names.js';
import type { Diverged, DivergedAt, DivergedReason } from './round.js';

/**
 * What a sync keeps of its own (docs/history.md, Sync): the diverged names,
 * each with the commits its conflict came from, in `.git/desk-sync.json` —
 * this desk's bookkeeping, never committed or pushed, kept across restarts.
 * And the small pieces of text a sync shows: the remote without credentials,
 * the merge commit's identity.
 */

const STORE = 'desk-sync.json';
const HEX = /^[0-9a-f]{40,64}$/;

const REASONS: readonly DivergedReason[] = ['conflict', 'invalid', 'too_large', 'deleted_vs_edited', 'unreadable'];

const isAt = (x: unknown): x is DivergedAt => {
  const at = x as DivergedAt;
  return typeof at === 'object' && at !== null && typeof at.remote === 'string' && HEX.test(at.remote) && (at.base === null || (typeof at.base === 'string' && HEX.test(at.base)));
};

/**
 * An entry as this code keeps it. One written before HEAD held the remote's
 * version of a diverged name has no `reason` and no `form`: it reads as a
 * conflict whose HEAD holds this desk's copy (`form: 1`), which is how that
 * design committed it (docs/history.md, "Diverged, and settling it").
 */
const entry = (at: DivergedAt): DivergedAt => ({
  base: at.base,
  remote: at.remote,
  reason: REASONS.includes(at.reason) ? at.reason : 'conflict',
  problems: Array.isArray(at.problems) ? at.problems.filter((p) => typeof p?.code === 'string' && typeof p.message === 'string').slice(0, 20).map(({ code, message }) => ({ code, message })) : [],
  form: at.form === 2 ? 2 : 1,
  ...(Number.isSafeInteger(at.size) && at.size! >= 0 ? { size: at.size } : {}),
});

/** Only entries this code could have written: a name the unit rules accept, commits as hex. Anything else reads as none. */
export async function loadDiverged(gitDir: string): Promise<Diverged> {
  try {
    const d = JSON.parse(await readFile(join(gitDir, STORE), 'utf8')) as Partial<Diverged>;
    const keep = (kind: 'template' | 'role', o: unknown) =>
      Object.fromEntries(
        Object.entries(typeof o === 'object' && o ? o : {}).filter(
          ([name, at]) => (kind === 'template' ? isTemplateName(name) : isRoleName(name)) && isAt(at),
        ).map(([name, at]) => [name, entry(at as DivergedAt)]),
      ) as Record<string, DivergedAt>;
    return { templates: keep('template', d.templates), roles: keep('role', d.roles) };
  } catch {
    return { templates: {}, roles: {} };
  }
}

/** Written whole and renamed over: a crash leaves the old list or the new. */
export function saveDiverged(gitDir: string, d: Diverged): Promise<void> {
  return writeJsonDurable(join(gitDir, STORE), d);
}

/** Credentials in a URL stay out of answers, logs and commit messages. */
export function remoteLabel(remote: string): string {
  try {
    const u = new URL(remote);
    if (u.password || u.username) {
      u.password = '';
      u.username = '';
      return u.toString();
    }
  } catch {
    // a path or scp-like address
  }
  return remote;
}

/**
 * A round under way (docs/history.md, "What survives a crash"): the
 * journal's round entry (disk/journal.ts), written durably before the round
 * writes its first file and removed once its commit is in HEAD. A start that
 * finds it rolls the round forward (the same remote head, decided again from
 * HEAD's files, sync/round.ts) before anything else, and the start's look for
 * changes made on disk leaves the round's paths to it.
 */
export interface RoundJournal {
  /** the remote head being merged */
  remote: string;
  /** HEAD when the round began, or null in a repository with no commit */
  head: string | null;
}

/**
 * The library root of a repository: history runs only where `.git` is a
 * folder at the root's top (history/repo.ts gitDirKind), so the journal sits
 * beside it.
 */
const rootOf = (gitDir: string): string => dirname(gitDir);

export async function loadRound(gitDir: string): Promise<RoundJournal | null> {
  const j = readEntry(rootOf(gitDir), ROUND_ENTRY, 'round') as Partial<RoundJournal> | null;
  if (!j || typeof j.remote !== 'string' || !HEX.test(j.remote)) return null;
  if (j.head !== null && (typeof j.head !== 'string' || !HEX.test(j.head))) return null;
  return { remote: j.remote, head: j.head };
}

/** Durable before it returns: the round writes no file until the entry that rolls it forward is on disk. */
export function saveRound(gitDir: string, j: RoundJournal): Promise<void> {
  return writeEntryDurable(rootOf(gitDir), ROUND_ENTRY, 'round', { remote: j.remote, head: j.head });
}

/** `value` as JSON at `path`, on disk before it returns (whole or absent). */
export function writeJsonDurable(path: string, value: unknown): Promise<void> {
  return writeDurable(path, JSON.stringify(value));
}

export async function clearRound(gitDir: string): Promise<void> {
  removeEntry(rootOf(gitDir), ROUND_ENTRY);
}
