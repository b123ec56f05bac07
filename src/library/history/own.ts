import { blobAt, type Git } from './git.js';

/**
 * This desk's own versions of a name that HEAD does not hold (docs/history.md,
 * "This desk's own versions"): the copy a desk kept while a sync left the
 * name diverged, and the copy take theirs replaced. Each is a commit of its
 * own, with no parent, holding only the name's files as this desk had them,
 * on a local ref `refs/desk/own/<templates|roles>/<name>/<n>`: never pushed
 * (a push sends HEAD alone, sync.ts), never pruned (git gc keeps what a ref
 * reaches), kept after the name is settled. A name's history lists them
 * `shared: false` (read.ts), and restore takes one like any version.
 */

export const OWN_REFS = 'refs/desk/own';

export type OwnKind = 'templates' | 'roles';

/** The folder of refs holding a name's own versions. */
export const ownPrefix = (kind: OwnKind, name: string): string => `${OWN_REFS}/${kind}/${name}/`;

/** The own refs' folder for a history path (`templates/<name>.yaml`, `roles/<name>` or `roles/<name>/`), or null for any other path. */
export function ownPrefixOf(path: string): string | null {
  const t = /^templates\/([^/.][^/]*)\.yaml$/.exec(path);
  if (t) return ownPrefix('templates', t[1]!);
  const r = /^roles\/([^/.][^/]*)\/?$/.exec(path);
  return r ? ownPrefix('roles', r[1]!) : null;
}

/** The commits of a name's own refs, oldest number first. */
export async function ownCommits(git: Git, prefix: string): Promise<{ ref: string; commit: string }[]> {
  const r = await git.run(['for-each-ref', '--format=%(objectname) %(refname)', prefix]);
  if (r.code !== 0) return [];
  const out = r.stdout
    .toString('utf8')
    .split('\n')
    .flatMap((l) => {
      const m = /^([0-9a-f]{40,64}) (\S+)$/.exec(l);
      return m ? [{ ref: m[2]!, commit: m[1]!, n: Number(m[2]!.slice(prefix.length)) || 0 }] : [];
    });
  return out.sort((a, b) => a.n - b.n).map(({ ref, commit }) => ({ ref, commit }));
}

/**
 * Keeps `files` (path → bytes, null: no such file here) as a new own
 * version of the name, unless the newest one holds the very same bytes, or
 * the desk had no file of the name at all. Returns the commit, or null when
 * nothing new was kept. The committer and author are DESK_AUTHOR, read from
 * HEAD's committer (every commit here is committed by it).
 */
export async function keepOwn(git: Git, kind: OwnKind, name: string, files: ReadonlyMap<string, Buffer | null>, message: string): Promise<string | null> {
  if (![...files.values()].some((b) => b !== null)) return null;
  const prefix = ownPrefix(kind, name);
  const have = await ownCommits(git, prefix);
  const last = have[have.length - 1];
  if (last) {
    let same = true;
    for (const [p, b] of files) {
      const was = await blobAt(git, last.commit, p);
      if (!(b === null ? was === null : was?.equals(b))) same = false;
    }
    if (same) return null;
  }
  const n = have.reduce((m, h) => Math.max(m, Number(h.ref.slice(prefix.length)) || 0), 0) + 1;
  const ref = `${prefix}${n}`;
  const who = (await git.run(['log', '-1', '--format=%cn <%ce>', 'HEAD'])).stdout.toString('utf8').trim() || 'desk <desk@localhost>';
  const at = Math.floor(Date.now() / 1000);
  const data = (b: Buffer | string) => [`data ${Buffer.byteLength(b)}\n`, b, '\n'];
  const parts: (string | Buffer)[] = [`commit ${ref}\nmark :1\nauthor ${who} ${at} +0000\ncommitter ${who} ${at} +0000\n`, ...data(`${message}\n`)];
  for (const [p, b] of files) if (b !== null) parts.push(`M 100644 inline ${p}\n`, ...data(b));
  parts.push('\n', 'done\n');
  await git.ok(['fast-import', '--quiet', '--done'], { input: Buffer.concat(parts.map((x) => (typeof x === 'string' ? Buffer.from(x) : x))) });
  return (await git.line(['rev-parse', '--verify', '-q', `${ref}^{commit}`])) || null;
}
