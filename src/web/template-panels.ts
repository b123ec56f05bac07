import { ApiError, call, enc } from './api.js';
import { clear, h } from './dom.js';
import { type DiffSources, diffView } from './diff-view.js';
import type { CompareViews } from './merge-compare.js';
import { stateInfo } from './states.js';
import type { TemplateDiff } from '../schema/diff.js';
import type { TemplateAnswer, TemplateSummary } from '../schema/templates.js';
import { errorText } from './ui.js';

export { rebasePreview } from './merge-rebase.js';

/** The larger parts of one template's page that fetch on their own: the diff tab, the 412 conflict, the rebase preview. */

export interface DiffPanelOptions {
  name: string;
  detail: TemplateAnswer;
  dirty: boolean;
  /** '' for the service's default, else `shipped`, `base` or a template name */
  against: string;
  templates: () => Promise<TemplateSummary[]>;
  onAgainst: (against: string) => void;
  /** the page's compare views, which the diff joins */
  compares: CompareViews;
}

export async function fillDiffPanel(panel: HTMLElement, o: DiffPanelOptions): Promise<void> {
  clear(panel);
  const select = h('select', { id: 'diff-against', onchange: () => o.onAgainst(select.value) });
  const options: [string, string][] = [['', 'the default (shipped, else its base)']];
  if (o.detail.shipped) options.push(['shipped', 'the shipped version']);
  if (o.detail.card.header?.base) options.push(['base', `its base (${o.detail.card.header.base})`]);
  try {
    for (const t of await o.templates()) if (t.name !== o.name) options.push([t.name, t.name]);
  } catch {
    // the list is only for the picker; the diff itself still works
  }
  for (const [v, label] of options) select.append(h('option', { value: v, selected: v === o.against }, label));
  const out = h('div', { class: 'diff-out', 'aria-live': 'polite' }, 'Loading…');
  panel.append(h('p', { class: 'picker' }, h('label', { for: 'diff-against' }, 'Compare with '), select), out);
  if (o.dirty) panel.append(h('p', { class: 'note' }, 'The diff is of the saved template, not your unsaved text.'));
  try {
    const q = o.against ? `?against=${enc(o.against)}` : '';
    const { body } = await call<TemplateDiff>('GET', `/templates/${enc(o.name)}/diff${q}`);
    const sources = body.identical ? undefined : await diffSources(body, o.detail);
    clear(out);
    out.append(diffView(body, o.detail.card, sources, o.compares));
  } catch (e) {
    clear(out);
    out.append(h('p', { class: 'callout' }, e instanceof ApiError && e.status === 409 ? `Nothing to compare with: ${e.detail}` : errorText(e)));
  }
}

/**
 * The two texts of a diff, for the merge view: the shipped bytes came with the
 * template; a base or another template is read. A version from history, or a
 * text that cannot be read now, leaves the service's unified diff instead.
 */
async function diffSources(d: TemplateDiff, detail: TemplateAnswer): Promise<DiffSources | undefined> {
  const after = { after: detail.source, afterLabel: `${detail.name} as saved` };
  if (d.against.kind === 'shipped') {
    return detail.shipped_source === null ? undefined : { before: detail.shipped_source, beforeLabel: `shipped ${d.against.name}`, ...after };
  }
  if (d.against.kind !== 'base' && d.against.kind !== 'template') return undefined;
  try {
    const { body } = await call<TemplateAnswer>('GET', `/templates/${enc(d.against.name)}`);
    return { before: body.source, beforeLabel: `${d.against.kind === 'base' ? 'its base ' : ''}${d.against.name}`, ...after };
  } catch {
    return undefined;
  }
}

export interface ConflictChoices {
  /** drop the edits: the saved version loads */
  reload: () => void;
  /** whether reloading would drop edits now: then Reload asks first */
  dirty?: () => boolean;
  /** the three-way merge of the edits and the saved version over the version loaded (merge-rebase.ts's choices) */
  merge: () => void;
  /** save what the editor holds now over the saved version (If-Match of the version just seen) */
  overwrite: () => void;
}

/**
 * A save made elsewhere met while this tab has edits: `refused`, a save of
 * ours answered 412 (an error: nothing was written); `elsewhere`, the events
 * said so before Save was pressed (a warning). The text stays in the editor
 * either way; the choices act on what it holds when they are clicked.
 */
export function conflictBox(kind: 'refused' | 'elsewhere', saved: TemplateAnswer, on: ConflictChoices): HTMLElement {
  const lead =
    kind === 'refused'
      ? [h('strong', {}, 'Not saved: this template changed elsewhere'), ' since you opened it (another tab or window saved or reset it).']
      : [h('strong', {}, 'This template changed elsewhere'), ' since you opened it (another tab, window or a hand edit).'];
  return h(
    'div',
    { class: `callout ${kind === 'refused' ? 'error' : 'warning'} conflict`, role: kind === 'refused' ? 'alert' : 'group', 'aria-label': kind === 'refused' ? null : 'Changed elsewhere', 'data-conflict': kind },
    h('p', {}, ...lead, ` It reads ${stateInfo(saved.state).label} now. Your text is still in the editor, unsaved.`),
    h(
      'p',
      { class: 'actions' },
      h('button', { type: 'button', class: 'primary', onclick: on.merge }, 'Merge with the saved version'),
      h('button', { type: 'button', onclick: (ev: Event) => askReload(ev.currentTarget as HTMLButtonElement, on) }, 'Reload the saved version'),
      h('button', { type: 'button', class: 'danger', onclick: on.overwrite }, 'Save mine over it'),
    ),
  );
}

/**
 * Reload drops the edits in the editor: asked first, in the conflict's box,
 * with the focus on Cancel (as Reset, Delete and Restore ask); nothing to
 * drop, it reloads at once.
 */
export function askReload(button: HTMLButtonElement, on: Pick<ConflictChoices, 'reload' | 'dirty'>): void {
  if (!(on.dirty?.() ?? false)) {
    on.reload();
    return;
  }
  const box = button.closest('.conflict') ?? button.parentElement!;
  box.querySelector('.reload-ask')?.remove();
  const ask = h('div', { class: 'callout confirm reload-ask', role: 'group', 'aria-label': 'Confirm reload' });
  const cancel = h('button', { type: 'button', onclick: () => {
    ask.remove();
    button.focus();
  } }, 'Cancel');
  ask.addEventListener('keydown', (ev) => {
    if (ev.key === 'Escape') cancel.click();
  });
  ask.append(
    h('p', {}, 'Reload the saved version? Your edits in the editor are dropped; nothing of them is kept.'),
    h('p', { class: 'actions' }, h('button', { type: 'button', class: 'danger', onclick: () => {
      ask.remove();
      on.reload();
    } }, 'Yes, reload'), cancel),
  );
  box.append(ask);
  cancel.focus();
}
