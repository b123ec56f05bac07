import { diffComm } from 'node-diff3';
import { call, enc } from './api.js';
import { operatorLinesLost } from './proposal-lines.js';
import { h } from './dom.js';
import type { TemplateAnswer } from '../schema/templates.js';

/**
 * What saving a proposal would do to the library as it stands (docs/settings-page.md,
 * Proposals): a new name; the same text as the copy there; a copy with
 * nothing of the operator's in it (shipped, same as shipped, an unedited
 * older one); or an edited copy, whose lines of the operator's that the
 * proposal does not keep would go. Worked out against the copy read now,
 * whose ETag then guards the save: a change made after it is a 412.
 */
export type Impact =
  | { kind: 'new' }
  | { kind: 'same'; etag: string | null; current: TemplateAnswer }
  | { kind: 'unedited'; etag: string | null; current: TemplateAnswer }
  | { kind: 'edited'; etag: string | null; current: TemplateAnswer; lost: string[] };

/** States whose text is the operator's own work (docs/api.md, States). */
const EDITED: ReadonlySet<string> = new Set(['edited', 'shipped_changed_since', 'custom', 'diverged']);

const lines = (t: string): string[] => (t === '' ? [] : t.replace(/\r\n?/g, '\n').replace(/\n$/, '').split('\n'));
type Run = { common: string[] } | { buffer1: string[]; buffer2: string[] };

/** Reads the copy under `name` (only when the library lists it: no request that can only be a 404) and says what saving `proposed` over it does. */
export async function impactOf(name: string, proposed: string, inLibrary: ReadonlySet<string>): Promise<Impact> {
  if (!inLibrary.has(name)) return { kind: 'new' };
  const { body: current, etag } = await call<TemplateAnswer>('GET', `/templates/${enc(name)}`);
  if (lines(current.source).join('\n') === lines(proposed).join('\n')) return { kind: 'same', etag, current };
  if (!EDITED.has(current.state)) return { kind: 'unedited', etag, current };
  return { kind: 'edited', etag, current, lost: operatorLinesLost(current.source, proposed, current.shipped_source) };
}

/**
 * The proposal against the copy it would replace, as text: removed lines of
 * the operator's marked ("yours") so what the save would drop is seen
 * before it is asked about.
 */
export function replacedDiffView(current: string, proposed: string, lost: readonly string[], label: string): HTMLElement {
  const yours = new Set(lost);
  const pre = h('pre', { class: 'unified upgrade-diff replaced-diff', 'aria-label': label, tabindex: 0 });
  const runs = diffComm(lines(current), lines(proposed)) as unknown as Run[];
  runs.forEach((r, i) => {
    if ('common' in r) {
      const c = r.common;
      const head = i === 0 ? 0 : 3;
      const tail = i === runs.length - 1 ? 0 : 3;
      if (c.length <= head + tail + 1) for (const t of c) pre.append(h('span', { class: 'l' }, ` ${t}`), '\n');
      else {
        for (const t of c.slice(0, head)) pre.append(h('span', { class: 'l' }, ` ${t}`), '\n');
        pre.append(h('span', { class: 'l hunk' }, `⋯ ${c.length - head - tail} unchanged lines`), '\n');
        for (const t of c.slice(c.length - tail)) pre.append(h('span', { class: 'l' }, ` ${t}`), '\n');
      }
      return;
    }
    for (const t of r.buffer1) {
      const mine = yours.has(t);
      pre.append(h('span', { class: `l del${mine ? ' yours' : ''}`, 'data-yours': mine ? 'true' : null }, `-${t}`, mine ? h('span', { class: 'yours-tag' }, '  ← yours') : null), '\n');
    }
    for (const t of r.buffer2) pre.append(h('span', { class: 'l add' }, `+${t}`), '\n');
  });
  return pre;
}
