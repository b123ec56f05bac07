import { type Git, GitError } from './git.js';
import type { FileAt, Page, RecentVersion, Version } from './types.js';

/**
 * The readers (docs/history.md): plain `git log` and `git cat-file` over
 * HEAD, safe beside the commit queue (a reader sees HEAD before or after a
 * commit, never between). Bad input — a commit that is not hex, a path
 * that is not a library path — answers nothing rather than reaching git.
 */

const HEX = /^[0-9a-f]{4,64}$/;
/** root-relative, no `..`, no leading dash or colon: a plain library path */
const PATH = /^(?!-)(?!.*(?:^|\/)\.\.?(?:\/|$))[A-Za-z0-9._\-/]{1,300}$/;
const FS = '\x1f';
const RS = '\x1e';
const FORMAT = `--format=${RS}%H${FS}%at${FS}%an <%ae>${FS}%(trailers:key=Who,valueonly,separator=%x2C)${FS}%s${FS}`;

export const validCommit = (c: unknown): c is string => typeof c === 'string' && HEX.test(c);
export const validPath = (p: unknown): p is string => typeof p === 'string' && PATH.test(p) && !p.endsWith('/');

function parse(out: string): RecentVersion[] {
  const list: RecentVersion[] = [];
  for (const rec of out.split(RS)) {
    const f = rec.split(FS);
    if (f.length < 6) continue;
    const [commit, at, author, who, message, rest] = f as [string, string, string, string, string, string];
    const paths = rest
      .split(/[\n\0]/)
      .map((s) => s.trim())
      .filter(Boolean)
      .sort();
    list.push({ commit, at: new Date(Number(at) * 1000).toISOString(), author, who: who.trim() || null, message, paths });
  }
  return list;
}

function revs(page: Page): string[] | null {
  if (page.before === undefined) return ['HEAD'];
  if (!validCommit(page.before)) return null;
  // the parents of `before`: everything older than it, exclusive
  return [`${page.before}^@`];
}

const limit = (page: Page) => String(Math.max(1, Math.min(10_000, Math.floor(page.limit) || 1)));

export async function log(git: Git, path: string, page: Page): Promise<Version[]> {
  const r = revs(page);
  if (!r || !validPath(path)) return [];
  const out = await git.run(['log', '--no-show-signature', '--no-color', '-n', limit(page), FORMAT, ...r, '--', path]);
  if (out.code !== 0) return [];
  return parse(out.stdout.toString('utf8')).map(({ paths: _, ...v }) => v);
}

export async function recent(git: Git, page: Page): Promise<RecentVersion[]> {
  const r = revs(page);
  if (!r) return [];
  const out = await git.run(['log', '--no-show-signature', '--no-color', '--name-only', '-z', '-n', limit(page), FORMAT, ...r]);
  if (out.code !== 0) return [];
  return parse(out.stdout.toString('utf8'));
}

export async function show(git: Git, path: string, commit: string): Promise<string | null> {
  if (!validCommit(commit) || !validPath(path)) return null;
  const r = await git.run(['cat-file', 'blob', `${commit}^{commit}:${path}`]);
  return r.code === 0 ? r.stdout.toString('utf8') : null;
}

/**
 * Many files at many commits in one `git cat-file --batch`: a page of
 * versions needs each one's bytes for its state and ETag, and one process
 * per version was most of a page's time (120 commits on a loaded 2-core box,
 * p50: 20 versions 785 ms, 100 versions 3.6 s). A file `show` would answer
 * null for answers null; a batch that fails as a whole throws.
 */
export async function showMany(git: Git, items: readonly FileAt[]): Promise<(string | null)[]> {
  const out: (string | null)[] = items.map(() => null);
  const asked = items.flatMap((it, i) => (validCommit(it.commit) && validPath(it.path) ? [i] : []));
  if (asked.length === 0) return out;
  const args = ['cat-file', '--batch'];
  const r = await git.run(args, { input: asked.map((i) => `${items[i]!.commit}^{commit}:${items[i]!.path}\n`).join('') });
  // a batch that exited 0 with its output cut short fails like one that exited non-zero
  const torn = () => new GitError(args, r.code === 0 ? { ...r, code: 1, stderr: r.stderr || 'its output ended early' } : r);
  if (r.code !== 0) throw torn();
  const buf = r.stdout;
  let pos = 0;
  for (const i of asked) {
    const nl = buf.indexOf(10, pos);
    if (nl === -1) throw torn();
    const head = buf.subarray(pos, nl).toString('utf8');
    pos = nl + 1;
    // `<oid> <type> <size>`, or `<name> missing` / `<name> ambiguous` with no body
    const m = /^[0-9a-f]{40,64} (\w+) (\d+)$/.exec(head);
    if (!m) continue;
    const size = Number(m[2]);
    if (m[1] === 'blob') out[i] = buf.subarray(pos, pos + size).toString('utf8');
    pos += size + 1;
  }
  return out;
}
