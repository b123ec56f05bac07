import { rolePaths, templatePaths, unitOf } from '../layout.js';
import type { Git } from '../history/git.js';
import { loadDiverged, loadRound } from './store.js';

/**
 * The paths a sync answers for at a start (docs/history.md, "What survives
 * a crash"): the files of a name a sync left diverged, whose copy on disk
 * differs from HEAD until a person decides, and of every name the round a
 * crash cut short takes from the remote (its journal names the remote head;
 * git names what changed there), which the sync rolls forward. The start's
 * look for changes made on disk leaves these alone: none of them is an edit
 * made on this desk.
 */
export async function syncOwned(git: Git): Promise<(path: string) => boolean> {
  const d = await loadDiverged(git.gitDir);
  const paths = new Set<string>([...Object.keys(d.templates).flatMap(templatePaths), ...Object.keys(d.roles).flatMap(rolePaths)]);
  const j = await loadRound(git.gitDir);
  if (j) {
    const head = await git.run(['rev-parse', '-q', '--verify', 'HEAD^{commit}']);
    const h = head.code === 0 ? head.stdout.toString('utf8').trim() : null;
    const base = h ? await git.run(['merge-base', h, j.remote]) : null;
    const b = base?.code === 0 ? base.stdout.toString('utf8').trim() : null;
    const out = await git.run(b ? ['diff', '--name-only', '--no-renames', '-z', b, j.remote] : ['ls-tree', '-r', '--name-only', '-z', j.remote]);
    for (const p of out.code === 0 ? out.stdout.toString('utf8').split('\0').filter(Boolean) : []) {
      const u = unitOf(p);
      if (u?.kind === 'template') for (const x of templatePaths(u.name)) paths.add(x);
      else if (u?.kind === 'role') for (const x of rolePaths(u.name)) paths.add(x);
      else if (u?.kind === 'plain') paths.add(p);
    }
  }
  return (p) => paths.has(p);
}
