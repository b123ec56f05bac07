/**
 * The walk both history listings read (docs/history.md, The walk): on a
 * repository two desks built through one bare remote, merging each other
 * both ways, a name's history lists every commit that changed it — the side
 * a merge dropped too — once each, children before parents; the library's
 * history pages reach every commit once whatever `limit` is; and a cursor
 * keeps its walk while a merge and a save land between pages. Two desks
 * through three rounds each, git at every step: `npm run test:proof` runs
 * this file (vitest.proof.config.ts, PROOF_ONLY); the cursor's refusals are
 * in test/history-cursor.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import type { Library } from '../src/library/types.js';
import { type Fixture, fixture, tpl } from './library-helpers.js';

const API = '/api/desk';
const PATH = 'templates/alpha.yaml';

/** git in a folder, with no user or system config; `when` sets both dates (seconds since the epoch) */
function git(cwd: string, args: string[], when?: number): string {
  const dates = when === undefined ? {} : { GIT_AUTHOR_DATE: `${when} +0000`, GIT_COMMITTER_DATE: `${when} +0000` };
  return execFileSync('git', ['-C', cwd, '-c', 'user.name=Desk B', '-c', 'user.email=b@example.org', '-c', 'init.defaultBranch=main', ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', ...dates },
  });
}

const lines = (s: string) => s.split('\n').filter(Boolean);

/** Replaces the line that starts with `prefix` (or appends it) in a clone's alpha, and commits it. */
async function commitLine(clone: string, prefix: string, line: string, message: string, when?: number): Promise<void> {
  const file = join(clone, PATH);
  const text = lines(await readFile(file, 'utf8'));
  const i = text.findIndex((l) => l.startsWith(prefix));
  if (i === -1) text.push(line);
  else text[i] = line;
  await writeFile(file, `${text.join('\n')}\n`);
  git(clone, ['commit', '-q', '-am', message], when);
}

/** Every commit reachable from `rev`, with its parents. */
function graph(root: string, rev = 'HEAD'): Map<string, string[]> {
  return new Map(lines(git(root, ['rev-list', '--parents', rev])).map((l) => l.split(' ')).map(([c, ...p]) => [c!, p]));
}

/** The object at `path` in a commit, or '' when it has none there. */
const objectAt = (root: string, commit: string, path: string) => {
  try {
    return git(root, ['rev-parse', '--verify', '--quiet', `${commit}:${path}`]).trim();
  } catch {
    return '';
  }
};

/**
 * The commits that made a version of `path`, by the rule of docs/history.md:
 * a commit whose `path` differs from its parent's (a root commit: that has
 * it), a merge whose `path` differs from every parent's.
 */
function versionsByHand(root: string, path: string): Set<string> {
  const out = new Set<string>();
  for (const [c, parents] of graph(root)) {
    const mine = objectAt(root, c, path);
    if (parents.length === 0 ? mine !== '' : parents.every((p) => objectAt(root, p, path) !== mine)) out.add(c);
  }
  return out;
}

/** True when every listed commit comes before all of its listed ancestors. */
function childrenFirst(list: string[], g: Map<string, string[]>): boolean {
  const ancestors = new Map<string, Set<string>>();
  const of = (c: string): Set<string> => {
    let a = ancestors.get(c);
    if (a) return a;
    a = new Set();
    ancestors.set(c, a);
    for (const p of g.get(c) ?? []) {
      a.add(p);
      for (const x of of(p)) a.add(x);
    }
    return a;
  };
  return list.every((c, i) => list.slice(i + 1).every((later) => !of(later).has(c)));
}

interface Desks {
  f: Fixture;
  /** desk A: the library's root, whose saves the library commits */
  root: string;
  /** desk B: a clone of the shared remote */
  b: string;
  /** A's saves of alpha, as committed */
  aSaves: string[];
}

let libs: Library[] = [];
afterEach(async () => {
  for (const l of libs) await l.close();
  libs = [];
});

async function openDesk(f: Fixture): Promise<Library> {
  const lib = await f.open();
  libs.push(lib);
  return lib;
}

async function closeDesk(lib: Library): Promise<void> {
  await lib.close();
  libs = libs.filter((l) => l !== lib);
}

/**
 * Two desks on one bare remote, each changing alpha, merging the other's
 * work both ways: A merges B (one of them with `-X theirs`, so the merge
 * keeps B's bytes and A's side is the one `git log -- path` drops), B merges
 * A (once with `-X ours`), clock skew on B's side, and a clean merge whose
 * bytes are new.
 */
async function twoDesks(): Promise<Desks> {
  const f = await fixture();
  const root = f.root;
  const aSaves: string[] = [];
  // A's edit keeps what B wrote: the purpose line only
  const saveA = async (n: number, lib: Library) => {
    const text = await readFile(join(root, PATH), 'utf8').catch(() => tpl('alpha'));
    await lib.saveTemplate('alpha', text.replace(/^ {2}purpose: .*$/m, `  purpose: desk A take ${n}`));
    await lib.history.settle();
    aSaves.push(git(root, ['rev-parse', 'HEAD']).trim());
  };
  let lib = await openDesk(f);
  await saveA(0, lib);
  await closeDesk(lib);
  const bare = join(f.base, 'remote.git');
  const b = join(f.base, 'b');
  git(f.base, ['clone', '-q', '--bare', root, bare]);
  git(root, ['remote', 'add', 'origin', bare]);
  git(root, ['fetch', '-q', 'origin']);
  git(f.base, ['clone', '-q', bare, b]);
  const branch = git(root, ['rev-parse', '--abbrev-ref', 'HEAD']).trim();
  const now = Math.floor(Date.now() / 1000);

  for (let round = 0; round < 3; round++) {
    // A saves twice through the library; B commits twice, one an hour behind the clock, one an hour ahead
    lib = await openDesk(f);
    await saveA(round * 10 + 1, lib);
    await saveA(round * 10 + 2, lib);
    await closeDesk(lib);
    await commitLine(b, '# b', `# b ${round}.1`, `b ${round}.1`, now - 3600 + round);
    await commitLine(b, '# b', `# b ${round}.2`, `b ${round}.2`, now + 3600 + round);
    git(b, ['push', '-q', 'origin', `HEAD:${branch}`]);
    // A merges B (clean: new bytes), and pushes
    git(root, ['fetch', '-q', 'origin']);
    git(root, ['merge', '-q', '--no-ff', '--no-edit', `origin/${branch}`]);
    git(root, ['push', '-q', 'origin', `HEAD:${branch}`]);
    // B changes the line A changes, A saves it too: B merges A keeping its own, A merges that keeping B's
    await commitLine(b, '  purpose:', `  purpose: desk B take ${round}`, `b purpose ${round}`);
    git(b, ['fetch', '-q', 'origin']);
    git(b, ['merge', '-q', '--no-edit', '-X', 'ours', `origin/${branch}`]);
    lib = await openDesk(f);
    await saveA(round * 10 + 3, lib);
    await closeDesk(lib);
    git(b, ['push', '-q', 'origin', `HEAD:${branch}`]);
    git(root, ['fetch', '-q', 'origin']);
    git(root, ['merge', '-q', '--no-edit', '-X', 'theirs', `origin/${branch}`]);
    git(root, ['push', '-q', 'origin', `HEAD:${branch}`]);
    git(b, ['pull', '-q', '--ff-only', 'origin', branch]);
  }
  return { f, root, b, aSaves };
}

/**
 * The two desks, built once for the file: building them is most of each
 * test's time (three rounds of saves, pushes and merges, git at every step).
 * The first test only reads them; the second adds a save and a merge after
 * taking its own `before`, so it runs on them second.
 */
let built: Promise<Desks> | null = null;
const sharedDesks = (): Promise<Desks> => (built ??= twoDesks());

/** Every page of a listing, following `cursor` (or `next` as `before`), as the commits it answered. */
async function pages(get: (q: string) => Promise<{ items: string[]; next: string | null; cursor: string | null }>, limit: number, via: 'cursor' | 'before' = 'cursor'): Promise<string[]> {
  const seen: string[] = [];
  let q = `limit=${limit}`;
  for (let i = 0; i < 1000; i++) {
    const p = await get(q);
    seen.push(...p.items);
    const at = via === 'cursor' ? p.cursor : p.next;
    if (at === null) return seen;
    q = `limit=${limit}&${via}=${at}`;
  }
  throw new Error('the pages never ended');
}

describe('the walk over two desks merging each other', () => {
  it("lists every version of a name, the merge's lost side too, once each and children first; pages reach every commit once at any limit", { timeout: 120_000 }, async () => {
    const d = await sharedDesks();
    const lib = await openDesk(d.f);
    const app = await buildApp({ library: lib, web: false });
    try {
      const get = async (url: string) => {
        const r = await app.inject({ url: `${API}${url}` });
        expect(r.statusCode).toBe(200);
        return r.json();
      };
      const g = graph(d.root);
      const expected = versionsByHand(d.root, PATH);
      // the `-X theirs` merges dropped A's side from `git log -- path`: the case this walk is for
      const simplified = new Set(lines(git(d.root, ['log', '--format=%H', '--', PATH])));
      expect(d.aSaves.filter((c) => !simplified.has(c)).length).toBeGreaterThan(0);

      const all = (await get('/templates/alpha/history?limit=100')) as { versions: { commit: string }[]; next: string | null; cursor: string | null };
      const listed = all.versions.map((v) => v.commit);
      for (const c of d.aSaves) expect(listed).toContain(c);
      expect(new Set(listed).size).toBe(listed.length);
      expect(new Set(listed)).toEqual(expected);
      expect(childrenFirst(listed, g)).toBe(true);
      expect(all.next).toBeNull();
      expect(all.cursor).toBeNull();

      for (const limit of [1, 2, 3, 7, 50]) {
        const versions = await pages(async (q) => {
          const p = await get(`/templates/alpha/history?${q}`);
          return { items: p.versions.map((v: { commit: string }) => v.commit), next: p.next, cursor: p.cursor };
        }, limit);
        expect(versions).toEqual(listed);
        for (const via of limit === 2 || limit === 7 ? (['cursor', 'before'] as const) : (['cursor'] as const)) {
          const commits = await pages(async (q) => {
            const p = await get(`/history?${q}`);
            return { items: p.commits.map((c: { commit: string }) => c.commit), next: p.next, cursor: p.cursor };
          }, limit, via);
          expect(commits.length).toBe(g.size);
          expect(new Set(commits)).toEqual(new Set(g.keys()));
          expect(childrenFirst(commits, g)).toBe(true);
        }
      }
      expect(git(d.root, ['fsck', '--no-progress']).trim()).toBe('');
    } finally {
      await app.close();
    }
  });

  it('a merge and a save that land between pages join no walk under way; the next first page has them', { timeout: 120_000 }, async () => {
    const d = await sharedDesks();
    const lib = await openDesk(d.f);
    const app = await buildApp({ library: lib, web: false });
    try {
      const get = async (url: string) => {
        const r = await app.inject({ url: `${API}${url}` });
        expect(r.statusCode).toBe(200);
        return r.json();
      };
      const before = graph(d.root);
      const versionsBefore = versionsByHand(d.root, PATH);
      const first = await get('/history?limit=3');
      const firstVersions = await get('/templates/alpha/history?limit=2');
      expect(first.cursor).toMatch(/^[0-9a-f]{40}\.[0-9a-f]{40}$/);

      // A saves alpha through the library; B, long offline, pushes a commit made two hours ago on an old
      // commit (a template of its own, so the merge is clean); A merges it. By date and place it belongs
      // below where the first pages stopped
      await lib.saveTemplate('alpha', (await readFile(join(d.root, PATH), 'utf8')).replace(/^ {2}purpose: .*$/m, '  purpose: desk A late'));
      await lib.history.settle();
      git(d.b, ['checkout', '-q', '-b', 'late', 'HEAD~6']);
      await writeFile(join(d.b, 'templates', 'late.yaml'), tpl('late'));
      git(d.b, ['add', 'templates/late.yaml']);
      git(d.b, ['commit', '-q', '-m', 'b late'], Math.floor(Date.now() / 1000) - 7200);
      git(d.b, ['push', '-q', 'origin', 'late']);
      git(d.root, ['fetch', '-q', 'origin']);
      git(d.root, ['merge', '-q', '--no-ff', '--no-edit', 'origin/late']);
      const arrived = [...graph(d.root).keys()].filter((c) => !before.has(c));
      expect(arrived.length).toBeGreaterThanOrEqual(3);

      // the first pages' cursors: the walks they began
      const followed: string[] = first.commits.map((c: { commit: string }) => c.commit);
      for (let cursor: string | null = first.cursor; cursor !== null; ) {
        const p = await get(`/history?limit=3&cursor=${cursor}`);
        followed.push(...p.commits.map((c: { commit: string }) => c.commit));
        cursor = p.cursor;
      }
      expect(followed.length).toBe(before.size);
      expect(new Set(followed)).toEqual(new Set(before.keys()));
      for (const c of arrived) expect(followed).not.toContain(c);

      // `before` alone walks from today's HEAD: there the late commit is below the first page
      const late = git(d.root, ['rev-parse', 'origin/late']).trim();
      const unpinned: string[] = [];
      for (let next: string | null = first.next; next !== null; ) {
        const p = await get(`/history?limit=3&before=${next}`);
        unpinned.push(...p.commits.map((c: { commit: string }) => c.commit));
        next = p.next;
      }
      expect(unpinned).toContain(late);

      const versions: string[] = firstVersions.versions.map((v: { commit: string }) => v.commit);
      for (let cursor: string | null = firstVersions.cursor; cursor !== null; ) {
        const p = await get(`/templates/alpha/history?limit=2&cursor=${cursor}`);
        versions.push(...p.versions.map((v: { commit: string }) => v.commit));
        cursor = p.cursor;
      }
      expect(versions.length).toBe(versionsBefore.size);
      expect(new Set(versions)).toEqual(versionsBefore);

      // a walk begun now has what arrived, from today's HEAD
      const fresh = await pages(async (q) => {
        const p = await get(`/history?${q}`);
        return { items: p.commits.map((c: { commit: string }) => c.commit), next: p.next, cursor: p.cursor };
      }, 3);
      expect(fresh.length).toBe(before.size + arrived.length);
      expect(new Set(fresh)).toEqual(new Set([...before.keys(), ...arrived]));
      expect(fresh[0]).toBe(git(d.root, ['rev-parse', 'HEAD']).trim());
      expect(git(d.root, ['fsck', '--no-progress']).trim()).toBe('');
    } finally {
      await app.close();
    }
  });
});
