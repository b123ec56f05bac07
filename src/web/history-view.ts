import { type Answer, ApiError, call, enc, type RequestOptions } from './api.js';
import { add, clear, h } from './dom.js';
import { diffView, unifiedView } from './diff-view.js';
import type { CompareViews } from './merge-compare.js';
import type { TemplateDiff } from '../schema/diff.js';
import type { HistoryAnswer, RoleDiff, TemplateVersion, Version } from '../schema/history.js';
import type { TemplateAnswer } from '../schema/templates.js';
import { errorText } from './ui.js';
import { can } from './me.js';

/**
 * The History panel of a template or a role (docs/api.md, History): its
 * versions (when, who, message), the diff of any of them against what loads
 * now, and Restore behind a confirmation. A restore is a save of that
 * version, so it goes through the page's own write (its events are ours).
 */
export interface HistoryPanelOptions {
  kind: 'template' | 'role';
  name: string;
  /** the ETag that loads now: the version carrying it is marked current, and a restore sends it as If-Match */
  etag: string | null;
  /** the editor holds unsaved text that a restore would replace */
  dirty: boolean;
  /** the page's write (template-view.ts keeps its own events from reading as news); default a plain call */
  write?: <T>(method: string, path: string, opts: RequestOptions) => Promise<Answer<T>>;
  /** after a restore: read the entry again and say `message` */
  restored: (message: string) => Promise<void>;
  /** the page's compare views, which a version's diff joins */
  compares: CompareViews;
}

const VERSION_STATE_LABEL: Record<Version['state'], string> = {
  same_as_shipped: 'same as shipped',
  edited: 'edited',
  custom: 'custom',
  shipped: 'reset to shipped',
  deleted: 'deleted',
};

const short = (commit: string) => commit.slice(0, 7);

function when(at: string): string {
  const d = new Date(at);
  return Number.isNaN(d.getTime()) ? at : d.toLocaleString();
}

const STEPS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['second', 60],
  ['minute', 60],
  ['hour', 24],
  ['day', 30],
  ['month', 12],
  ['year', Number.POSITIVE_INFINITY],
];

/** `3 minutes ago`: how long ago, as a reader scans a list; the exact time goes in the entry's title */
export function ago(at: string, now = Date.now()): string {
  const t = new Date(at).getTime();
  if (Number.isNaN(t)) return at;
  let n = Math.round((t - now) / 1000);
  // a clock a little ahead of the desk's reads as now, not "in 2 seconds"
  if (n > 0 && n < 60) n = 0;
  const fmt = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  for (const [unit, size] of STEPS) {
    if (Math.abs(n) < size) return fmt.format(n, unit);
    n = Math.round(n / size);
  }
  return when(at);
}

export async function fillHistoryPanel(panel: HTMLElement, o: HistoryPanelOptions): Promise<void> {
  clear(panel);
  const base = `/${o.kind === 'template' ? 'templates' : 'roles'}/${enc(o.name)}`;
  const headId = `history-head-${o.kind}`;
  const list = h('ol', { class: 'history-list', 'aria-label': `Versions of ${o.name}` });
  const notices = h('div', { class: 'notices history-notices' });
  const out = h('div', { class: 'history-diff', 'aria-live': 'polite' });
  const more = h('p', { class: 'actions' });
  panel.append(h('h3', { id: headId, tabindex: -1 }, 'History'), notices, list, more, out);

  const showDiff = async (v: Version) => {
    clear(out);
    out.append(h('p', { class: 'loading' }, 'Loading…'));
    try {
      const q = `?against=${enc(`version:${v.commit}`)}`;
      clear(out);
      out.append(h('h4', {}, `The version of ${when(v.at)} (${short(v.commit)}) against the current text`));
      if (o.dirty) out.append(h('p', { class: 'note' }, 'The current text is the saved one, not your unsaved edits.'));
      if (o.kind === 'template') {
        // the two texts too, so the text diff is the page's side-by-side view, and the saved card for the graph
        const [diff, then, now] = await Promise.all([
          call<TemplateDiff>('GET', `${base}/diff${q}`),
          call<TemplateVersion>('GET', `${base}/versions/${v.commit}`),
          call<TemplateAnswer>('GET', base),
        ]);
        const sources = { before: then.body.source, after: now.body.source, beforeLabel: `version ${short(v.commit)}`, afterLabel: 'saved' };
        out.append(diffView(diff.body, now.body.card, sources, o.compares));
      } else {
        const { body } = await call<RoleDiff>('GET', `${base}/diff${q}`);
        if (body.identical) out.append(h('p', { class: 'callout ok', role: 'status' }, 'Identical to the current role.'));
        for (const [file, text] of [['role.md', body.role_md], ['kit.json', body.kit_json]] as const) {
          if (text === '') continue;
          out.append(h('h5', {}, file), text === null ? h('p', { class: 'note' }, 'Too different for a line diff.') : unifiedView(text, `${file}: the version against the current`));
        }
      }
    } catch (e) {
      clear(out);
      out.append(h('p', { class: 'callout error', role: 'alert' }, `No diff: ${errorText(e)}`));
    }
  };

  const restore = async (v: Version) => {
    const write = o.write ?? call;
    try {
      await write('POST', `${base}/restore`, { body: { commit: v.commit }, ifMatch: o.etag });
      await o.restored(`Restored the version of ${when(v.at)} (${short(v.commit)}).`);
      // the page drew the panel again: focus its heading, so the new list is read from the top
      document.getElementById(headId)?.focus();
    } catch (e) {
      clear(notices);
      const stale = e instanceof ApiError && e.status === 412;
      notices.append(h('p', { class: 'callout error', role: 'alert' }, stale ? `Not restored: this ${o.kind} changed elsewhere. Reload to see it.` : `Not restored: ${errorText(e)}`));
      if (e instanceof ApiError && e.problems.length) {
        notices.append(h('ul', { class: 'problems' }, e.problems.map((p) => h('li', { class: `problem ${p.severity}` }, h('code', {}, p.code), ' ', p.message))));
      }
      // the confirmation that had the focus is gone: the alert takes it
      const alert = notices.querySelector<HTMLElement>('[role="alert"]');
      alert?.setAttribute('tabindex', '-1');
      alert?.focus();
    }
  };

  /** An inline confirmation: Cancel has the focus, so Enter on a stray key press restores nothing. */
  const confirmRestore = (v: Version, where: HTMLElement, from: HTMLElement) => {
    clear(notices);
    for (const c of list.querySelectorAll('.history-confirm')) c.remove();
    const box = h('div', { class: 'callout confirm history-confirm', role: 'group', 'aria-label': 'Confirm restore' });
    const close = () => {
      box.remove();
      from.focus();
    };
    const cancel = h('button', { type: 'button', onclick: close }, 'Cancel');
    const yes = h('button', { type: 'button', class: 'danger', onclick: () => {
      yes.disabled = true;
      box.remove();
      void restore(v);
    } }, 'Yes, restore');
    box.addEventListener('keydown', (ev) => {
      if (ev.key === 'Escape') close();
    });
    add(
      box,
      h(
        'p',
        {},
        `Restore ${o.name} to the version of ${when(v.at)} (${short(v.commit)})? It is saved as a new version; the current one stays in the history.`,
        o.kind === 'template' ? ' It keeps what it knew of the shipped template: a version saved against an older shipped version reads “shipped changed”, as it did then.' : null,
        o.dirty ? ' Your unsaved edits in the editor are replaced.' : null,
      ),
      h('p', { class: 'actions' }, yes, cancel),
    );
    where.append(box);
    cancel.focus();
  };

  /** the one version marked current: the newest whose bytes load now (a restore makes an older one with the same bytes) */
  let currentSeen = false;
  const item = (v: Version): HTMLElement => {
    const current = !currentSeen && v.etag !== null && v.etag === o.etag;
    if (current) currentSeen = true;
    // a proposal's save reads `save <name> from proposal <id>` (docs/history.md): marked, so it is not taken for a hand save
    const proposal = / from proposal (\S+?)(?:,|$)/.exec(v.message)?.[1] ?? null;
    const li = h('li', { class: 'history-item', 'data-commit': v.commit, 'data-state': v.state, 'data-proposal': proposal, 'data-shared': String(v.shared) });
    const diffButton = h('button', { type: 'button', onclick: () => void showDiff(v), 'aria-label': `Diff the version ${short(v.commit)} against the current text` }, 'Diff');
    const restoreButton =
      current || v.etag === null || !can('editor')
        ? null
        : h('button', { type: 'button', onclick: () => confirmRestore(v, li, restoreButton!), 'aria-label': `Restore the version ${short(v.commit)}` }, 'Restore');
    // the subject first: without a note two saves differ by it, who, when and the commit, all on the entry
    add(
      li,
      h(
        'p',
        { class: 'history-line' },
        h('span', { class: 'history-message' }, v.message),
        ' ',
        h('span', { class: 'tag' }, VERSION_STATE_LABEL[v.state]),
        proposal ? h('span', { class: 'tag proposal-save' }, v.message.includes("with the operator's edits") ? 'a proposal, edited' : 'a proposal') : null,
        // kept on a local ref, never pushed (docs/history.md): the team's library does not have it
        v.shared ? null : h('span', { class: 'tag own', title: 'Kept on this desk only: a sync never sends it' }, 'this desk only'),
        current ? h('span', { class: 'tag current' }, 'current') : null,
      ),
      h(
        'p',
        { class: 'history-meta' },
        h('span', { class: 'history-who' }, v.who ?? v.author),
        ' · ',
        h('time', { datetime: v.at, title: when(v.at) }, ago(v.at)),
        ' · ',
        h('code', { class: 'history-commit', title: v.commit }, short(v.commit)),
      ),
      v.etag === null ? null : h('p', { class: 'actions' }, diffButton, restoreButton),
    );
    return li;
  };

  // the cursor pins the walk the first page began (docs/api.md, History): a save landing meanwhile shifts nothing
  const page = async (cursor: string | null) => {
    const before = cursor;
    clear(more);
    try {
      const q = `?limit=20${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const { body } = await call<HistoryAnswer>('GET', `${base}/history${q}`);
      if (!before && body.versions.length === 0) {
        list.replaceWith(h('p', { class: 'note' }, `No versions yet: ${o.name} has not been saved in this library.`));
        return;
      }
      const items = body.versions.map(item);
      list.append(...items);
      // the Older versions button is gone: focus moves to the first version it brought
      if (before) items[0]?.querySelector<HTMLElement>('button')?.focus();
      if (body.cursor) {
        const next = body.cursor;
        more.append(h('button', { type: 'button', onclick: () => void page(next) }, 'Older versions'));
      }
    } catch (e) {
      const off = e instanceof ApiError && e.code === 'history_unavailable';
      notices.append(h('p', { class: off ? 'callout' : 'callout error', role: off ? 'note' : 'alert' }, off ? `No history: ${e.detail}` : `Could not read the history: ${errorText(e)}`));
    }
  };

  await page(null);
}

/** The panel as a section of its own, filled as it arrives: the role page's History (roles.ts). */
export function historySection(o: HistoryPanelOptions): HTMLElement {
  const panel = h('section', { class: 'history-panel', 'aria-labelledby': `history-head-${o.kind}` });
  void fillHistoryPanel(panel, o);
  return panel;
}
