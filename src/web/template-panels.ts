import { ApiError, call, enc } from './api.js';
import { clear, h } from './dom.js';
import { type DiffSources, diffView } from './diff-view.js';
import { compareView } from './merge-compare.js';
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
    out.append(diffView(body, o.detail.card, sources));
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

/** After a 412: the text is kept; reload, see the difference (diffed here, saved against yours), or overwrite. */
export function conflictBox(name: string, mine: string, on: { reload: () => void; overwrite: () => void }): HTMLElement {
  const diffOut = h('div', {});
  const showDifference = async () => {
    try {
      const { body } = await call<TemplateAnswer>('GET', `/templates/${enc(name)}`);
      clear(diffOut);
      diffOut.append(
        h('p', {}, `The saved version (${stateInfo(body.state).label}) against your text.`),
        compareView({ before: body.source, after: mine, beforeLabel: 'the saved version', afterLabel: 'your text' }).el,
      );
    } catch (e) {
      clear(diffOut);
      diffOut.append(h('p', {}, `Could not read the saved version: ${errorText(e)}`));
    }
  };
  return h(
    'div',
    { class: 'callout error conflict', role: 'alert' },
    h('p', {}, h('strong', {}, 'Not saved: this template changed elsewhere'), ' since you opened it (another tab or window saved or reset it). Your text is still in the editor.'),
    h(
      'p',
      { class: 'actions' },
      h('button', { type: 'button', onclick: on.reload }, 'Reload the saved version'),
      h('button', { type: 'button', onclick: () => void showDifference() }, 'Show the difference'),
      h('button', { type: 'button', class: 'danger', onclick: on.overwrite }, 'Save mine over it'),
    ),
    diffOut,
  );
}
