
import { describe, expect, it } from 'vitest';
import { ALPHA } from './http-fixture.js';
import { fullProof } from './proof-helpers.js';
import { fsckClean, gitIn, gitOf, openDesk, restart, save, sync, teammate, teamPerTest } from './sync-desks.js';

const team = teamPerTest('desk-large-');

const purpose = (p: string) => ALPHA.replace('purpose: one worker then a gate', `purpose: ${p}`);
const MB70 = 70 * 1024 * 1024;

/** 70 MB of lines, each different, so git stores it as the large object it is */
function large(head: string): Buffer {
  const b = Buffer.alloc(MB70, 0x20);
  b.write(head);
  for (let at = head.length, i = 0; at + 64 < MB70; at += 64, i++) b.write(`# ${i.toString(36).padStart(12, '0')}\n`, at);
  return b;
}

const cases = [
  { kind: 'template', path: 'templates/huge-one.yaml', name: 'huge-one' },
  { kind: 'role', path: 'roles/huge_role/role.md', name: 'huge_role' },
] as const;

describe.skipIf(!fullProof())('a teammate pushes a 70 MB file', () => {
  for (const c of cases) {
    for (const way of ['fast-forward', 'merge'] as const) {
      it(`a ${c.kind} (${way}): diverged too_large, kept in HEAD and on the remote across a restart`, { timeout: 300_000 }, async () => {
        const a = await openDesk(team.bare, team.desks);
        await save(a, 'alpha', purpose('first'));
        await sync(a);
        const tm = teammate(team.dir, team.bare);
        const bytes = large(c.kind === 'template' ? 'template:\n  name: huge-one\n' : '# Huge\n\n');
        tm.write(c.path, bytes);
        tm.push('a 70 MB file');
        if (way === 'merge') await save(a, 'alpha', purpose('second, not pushed yet'));
        const st = await sync(a);
        expect(st.last_error).toBeNull();
        expect(st.diverged_detail).toEqual([{ name: c.name, kind: c.kind, reason: 'too_large', problems: [], size: MB70 }]);
        expect(gitOf(a, 'cat-file', '-s', `HEAD:${c.path}`)).toBe(String(MB70));
        expect(gitOf(a, 'status', '--porcelain')).toBe('');
        await restart(a, team.bare);
        await save(a, 'alpha', purpose('third'));
        await sync(a);
        expect(gitOf(a, 'log', '--format=%s')).not.toMatch(new RegExp(`found on disk: (role )?${c.name}`));
        expect(gitIn(team.bare, 'cat-file', '-s', `main:${c.path}`)).toBe(String(MB70));
        expect(gitOf(a, 'status', '--porcelain')).toBe('');
        fsckClean(a);
      });
    }
  }
});
