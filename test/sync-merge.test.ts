/**
 * The per-name decision of a sync (src/library/sync/merge.ts), pure:
 * base, local and remote files in, keep / write / conflict out. The marker
 * rules of docs/history.md, Sync, each with a case.
 */
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../src/library/disk/markers.js';
import { type Blob, mergePlainFile, mergeTemplate, type TemplateSide } from '../src/library/sync/merge.js';
import { remoteLabel } from '../src/library/sync/store.js';

const S1 = 'a'.repeat(64);
const S2 = 'b'.repeat(64);
const SHIPPED = 'line 1\nline 2\nline 3\n';
const buf = (s: string | null): Blob => (s === null ? null : Buffer.from(s));
const marker = (shipped: string, yaml: string | null): Blob => buf(yaml === null ? `${shipped}\n` : `${shipped}\ncopy ${sha256Hex(yaml)}\n`);
const side = (yaml: string | null, shipped = S1): TemplateSide => ({ yaml: buf(yaml), marker: yaml === null ? null : marker(shipped, yaml) });
const ctx = { shippedHash: S1, shippedText: SHIPPED, valid: (s: string) => !s.includes('invalid') };
const text = (o: ReturnType<typeof mergeTemplate>) => (o.kind === 'write' ? { yaml: o.files.yaml?.toString(), marker: o.files.marker?.toString() } : o.kind);

describe('mergeTemplate', () => {
  it('changed on the remote only takes the remote, file and marker', () => {
    const r = side('line 1\nremote\nline 3\n');
    const o = mergeTemplate(side(null), side(null), r, ctx);
    expect(o).toMatchObject({ kind: 'write', how: 'theirs' });
    expect(text(o)).toEqual({ yaml: r.yaml!.toString(), marker: r.marker!.toString() });
  });

  it('changed here only, or the same change on both, keeps this desk', () => {
    expect(mergeTemplate(side(null), side('mine\n'), side(null), ctx).kind).toBe('keep');
    expect(mergeTemplate(side(null), side('same\n'), side('same\n'), ctx).kind).toBe('keep');
  });

  it('both changed different lines of the shipped bytes: merged over them, marker copy line follows the merge', () => {
    const o = mergeTemplate(side(null), side('mine 1\nline 2\nline 3\n'), side('line 1\nline 2\ntheirs 3\n'), ctx);
    expect(text(o)).toEqual({ yaml: 'mine 1\nline 2\ntheirs 3\n', marker: `${S1}\ncopy ${sha256Hex('mine 1\nline 2\ntheirs 3\n')}\n` });
  });

  it('the same lines changed both ways is a conflict', () => {
    expect(mergeTemplate(side(null), side('line 1\nmine\nline 3\n'), side('line 1\ntheirs\nline 3\n'), ctx)).toEqual({ kind: 'conflict', why: 'lines' });
  });

  it('a clean merge that does not validate is a conflict', () => {
    const o = mergeTemplate(side(null), side('invalid\nline 2\nline 3\n'), side('line 1\nline 2\nmore\n'), ctx);
    expect(o).toEqual({ kind: 'conflict', why: 'invalid' });
  });

  it('a custom template deleted on one side and edited on the other is a conflict', () => {
    const c = { ...ctx, shippedHash: null, shippedText: null };
    expect(mergeTemplate(side('x\n'), side(null), side('y\n'), c)).toEqual({ kind: 'conflict', why: 'deleted' });
  });

  it('markers that name different shipped versions: the one this desk ships wins, the copy line stays with the file', () => {
    // the remote acknowledged today's shipped version (S1); this desk saved against S2 before
    const base = side('old\n', S2);
    const local = side('mine\n', S2);
    const remote = { yaml: base.yaml, marker: marker(S1, 'old\n') };
    const o = mergeTemplate(base, local, remote, ctx);
    expect(text(o)).toEqual({ yaml: 'mine\n', marker: `${S1}\ncopy ${sha256Hex('mine\n')}\n` });
    // neither is this desk's: this desk's stands
    const other = { yaml: base.yaml, marker: marker('c'.repeat(64), 'old\n') };
    expect(mergeTemplate(base, local, other, ctx).kind).toBe('keep');
  });
});

describe('mergePlainFile', () => {
  it('takes a side changed alone and keeps this desk on a real difference', () => {
    expect(mergePlainFile(null, null, buf('k'))).toMatchObject({ kind: 'write', how: 'theirs' });
    expect(mergePlainFile(buf('o'), buf('a'), buf('b'))).toEqual({ kind: 'keep' });
  });
});

describe('remoteLabel', () => {
  it('leaves credentials in a URL out, and paths and scp-like addresses as they are', () => {
    const shown = remoteLabel('https://desk:s3cret@git.example/team/lib.git');
    expect(shown).not.toContain('s3cret');
    expect(shown).not.toContain('desk@');
    expect(shown).toContain('git.example/team/lib.git');
    expect(remoteLabel('/srv/team.git')).toBe('/srv/team.git');
    expect(remoteLabel('git@host:team/lib.git')).toBe('git@host:team/lib.git');
  });
});
