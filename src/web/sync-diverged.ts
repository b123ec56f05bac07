import { call, enc } from './api.js';
import { clear, h } from './dom.js';
import { type CompareViews, compareView } from './merge-compare.js';
import { conflictsOf, freshResolutions, resolve, unresolved } from './merge-resolve.js';
import type { DivergedTemplate } from '../schema/sync.js';
import type { RebaseAnswer } from '../schema/templates.js';

/**
 * A diverged template's actions (docs/api.md, Sync): the team remote changed
 * it too and a sync could not merge the two, so this desk's copy loads. Like
 * a shipped change, the remote's version is offered: the difference (the
 * merge view the diff tab uses), a rebase of the copy onto it (each conflict
 * a choice, with the rebase preview's own merge-resolve functions), and keep
 * mine. The rebased text goes into the editor unsaved; saving it settles the
 * name.
 */

export interface DivergedHandlers {
  /** the rebased text, for the editor */
  use: (merged: string) => void;
  /** keep this desk's copy (POST …/keep with the page's ETag) */
  keep: () => Promise<void>;
  close: () => void;
  /** the page's compare views, which the difference joins */
  compares: CompareViews;
}

export async function divergedPanel(name: string, copy: string, on: DivergedHandlers): Promise<HTMLElement> {
  const { body: d } = await call<DivergedTemplate>('GET', `/sync/templates/${enc(name)}`);
  const out = h('div', { class: 'diverged-out', 'aria-live': 'polite' });
  const theirs = d.remote_source;
  const section = h(
    'section',
    { class: 'callout diverged', 'aria-label': 'Diverged from the team library' },
    h('h3', { tabindex: -1 }, 'Changed here and in the team library'),
    h(
      'p',
      {},
      theirs === null ? 'The team library removed this template, and it was changed here.' : 'A sync could not merge the two versions, so your copy is kept.',
      ' Compare them, rebase your copy onto the team’s version, or keep yours.',
    ),
    h(
      'p',
      { class: 'actions' },
      theirs === null ? null : h('button', { type: 'button', onclick: () => compare(theirs) }, 'Show the difference'),
      h('button', { type: 'button', onclick: () => void rebase() }, 'Rebase onto theirs'),
      h('button', { type: 'button', onclick: () => void on.keep() }, 'Keep mine'),
      h('button', { type: 'button', onclick: () => on.close() }, 'Close'),
    ),
    out,
  );

  function compare(text: string): void {
    clear(out);
    out.append(compareView({ before: text, after: copy, beforeLabel: 'the team library’s version', afterLabel: 'your copy' }, on.compares).el);
  }

  async function rebase(): Promise<void> {
    clear(out);
    const { body } = await call<RebaseAnswer>('POST', `/sync/templates/${enc(name)}/rebase`, { body: {} });
    const res = freshResolutions(body.parts);
    const conflicts = conflictsOf(body.parts);
    const useButton = h('button', { type: 'button', class: 'primary' }, 'Use this');
    const status = h('p', { class: 'merge-status', role: 'status' });
    const update = () => {
      const left = unresolved(res);
      useButton.disabled = left > 0;
      status.textContent = left ? `${left} conflict${left === 1 ? '' : 's'} to settle.` : 'Every conflict settled; use it, then save.';
    };
    useButton.addEventListener('click', () => {
      const merged = resolve(body.parts, res);
      if (merged !== null) on.use(merged);
    });
    out.append(h('p', {}, conflicts.length ? `${conflicts.length} conflict${conflicts.length === 1 ? '' : 's'}: both changed the same lines.` : 'No conflicts: the two merge cleanly.'));
    conflicts.forEach((c, i) => {
      const group = `diverged-choice-${i}`;
      const choice = (value: 'mine' | 'shipped', label: string, lines: string) =>
        h(
          'label',
          { class: 'choice' },
          h('input', {
            type: 'radio',
            name: group,
            value,
            onchange: () => {
              res[i]!.choice = value;
              update();
            },
          }),
          ` ${label}`,
          h('pre', {}, lines || '(nothing)'),
        );
      out.append(h('fieldset', { class: 'conflict' }, h('legend', {}, `Conflict ${i + 1}`), choice('mine', 'Keep mine', c.copy), choice('shipped', 'Take theirs', c.theirs)));
    });
    out.append(status, useButton);
    update();
  }

  return section;
}
