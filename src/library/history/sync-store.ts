import { randomBytes } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isRoleName, isTemplateName } from '../../template/names.js';
import type { Diverged, DivergedAt } from './sync-round.js';

/**
 * What a sync keeps of its own (docs/history.md, Sync): the diverged names,
 * each with the commits its conflict came from, in `.git/desk-sync.json` —
 * this desk's bookkeeping, never committed or pushed, kept across restarts.
 * And the small pieces of text a sync shows: the remote without credentials,
 * the merge commit's identity.
 */

const STORE = 'desk-sync.json';
const HEX = /^[0-9a-f]{40,64}$/;

const isAt = (x: unknown): x is DivergedAt => {
  const at = x as DivergedAt;
  return typeof at === 'object' && at !== null && typeof at.remote === 'string' && HEX.test(at.remote) && (at.base === null || (typeof at.base === 'string' && HEX.test(at.base)));
};

/** Only entries this code could have written: a name the unit rules accept, commits as hex. Anything else reads as none. */
export async function loadDiverged(gitDir: string): Promise<Diverged> {
  try {
    const d = JSON.parse(await readFile(join(gitDir, STORE), 'utf8')) as Partial<Diverged>;
    const keep = (kind: 'template' | 'role', o: unknown) =>
      Object.fromEntries(
        Object.entries(typeof o === 'object' && o ? o : {}).filter(
          ([name, at]) => (kind === 'template' ? isTemplateName(name) : isRoleName(name)) && isAt(at),
        ),
      ) as Record<string, DivergedAt>;
    return { templates: keep('template', d.templates), roles: keep('role', d.roles) };
  } catch {
    return { templates: {}, roles: {} };
  }
}

/** Written whole and renamed over: a crash leaves the old list or the new. */
export async function saveDiverged(gitDir: string, d: Diverged): Promise<void> {
  const path = join(gitDir, STORE);
  const tmp = `${path}.${randomBytes(4).toString('hex')}`;
  await writeFile(tmp, JSON.stringify(d));
  await rename(tmp, path);
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
