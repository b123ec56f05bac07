import { ApiError, call, enc } from './api.js';
import { clear, h } from './dom.js';
import { dismissAsk, onDecision } from './decision.js';
import type { LaunchRun } from '../schema/launch.js';
import type { LaunchAnswer, LaunchList, LaunchSummary } from '../schema/launches.js';
import type { Problem } from '../schema/errors.js';
import { errorText } from './ui.js';
import { can } from './me.js';
import { decidedRow, pendingAndDecided, recordsPage, SHOWN } from './records-page.js';

/**
 * The Launches view (`#/launches`): each launch a conductor drafted and the
 * operator has not decided, newest first, with its runs — one card per
 * ticket, every prompt folded and shown as text, the nodes that may not run
 * marked — the template's state, and "changed since the draft" when it did;
 * Approve (with the draft's ETag, so what is approved is what is shown) and
 * Dismiss with a note. Then the decided ones. The desk starts nothing: the
 * conductor reads the decision (docs/api.md, Launches). Every value and
 * prompt is set as text, never as HTML.
 */

export async function launchesView(onDecided: () => void): Promise<HTMLElement> {
  const { waiting, decided } = await pendingAndDecided<LaunchList, 'launches'>('/launches', 'launches');
  const details = await Promise.all(waiting.slice(0, SHOWN).map(async (l) => (await call<LaunchAnswer>('GET', `/launches/${enc(l.id)}`)).body));
  return recordsPage({
    kind: 'launches',
    title: 'Launches',
    pending: waiting.length,
    intro: 'Launches a conductor drafted. Approving one tells the conductor to start these runs; the desk itself starts nothing.',
    none: 'No launch is waiting for a decision.',
    articles: details.map((d) => draftArticle(d, onDecided)),
    decided: { id: 'h-launches-decided', label: 'Decided launches', rows: decided.map(decidedLaunch) },
  });
}

function decidedLaunch(l: LaunchSummary): HTMLElement {
  return decidedRow(
    l,
    h('a', { href: `#/templates/${enc(l.template)}`, class: 'name' }, l.template),
    h('span', { class: `tag launch-${l.status}` }, l.status),
    l.decision_note ? h('p', { class: 'sentence' }, `Note: ${l.decision_note}`) : null,
  );
}

/**
 * What a refresh changed in a draft, in words: the runs, and the nodes and
 * prompts of each run, the refreshed draft against the one shown before.
 */
export function draftChanges(before: LaunchAnswer, after: LaunchAnswer): string {
  const was = before.preview.runs;
  const now = after.preview.runs;
  const parts: string[] = [];
  if (was.length !== now.length) parts.push(`${now.length} run${now.length === 1 ? '' : 's'} now, ${was.length} before`);
  const nodes = (runs: LaunchRun[]) => new Map(runs.flatMap((r) => r.nodes.map((n) => [`${r.index}/${n.id}`, n] as const)));
  const a = nodes(was);
  const b = nodes(now);
  const ids = (m: typeof a) => new Set([...m.keys()].map((k) => k.slice(k.indexOf('/') + 1)));
  const added = [...ids(b)].filter((id) => !ids(a).has(id));
  const removed = [...ids(a)].filter((id) => !ids(b).has(id));
  if (added.length) parts.push(`node${added.length === 1 ? '' : 's'} added: ${added.join(', ')}`);
  if (removed.length) parts.push(`node${removed.length === 1 ? '' : 's'} gone: ${removed.join(', ')}`);
  const prompts = new Set([...b].filter(([k, n]) => a.has(k) && JSON.stringify(a.get(k)) !== JSON.stringify(n)).map(([k]) => k.slice(k.indexOf('/') + 1)));
  if (prompts.size) parts.push(`changed: ${[...prompts].join(', ')}`);
  if (!after.preview.ok) parts.push('it cannot be approved as it is now');
  return parts.length ? parts.join('; ') : 'its runs read the same';
}

/**
 * One waiting draft: who and why, the template's state, its runs, and the
 * two decisions. `refreshed` (what a refresh changed) heads a draft drawn
 * again after an approve met a template changed since it was drafted.
 */
function draftArticle(d: LaunchAnswer, onDecided: () => void, refreshed: string | null = null): HTMLElement {
  const idBase = `l-${d.id}`;
  const out = h('div', { class: 'notices', 'aria-live': 'polite' });
  const runs = d.preview.runs;
  const gone = d.current_etag === null;
  const approveButton = h('button', { type: 'submit', class: 'primary', disabled: !d.preview.ok || gone }, 'Approve');
  const approveNote = h('input', { id: `${idBase}-approve-note`, class: 'approve-note', autocomplete: 'off', maxlength: 2000 });
  let article: HTMLElement;

  const fail = async (e: unknown, what: string) => {
    clear(out);
    // the template changed: the service refreshed the draft onto it; the refreshed draft replaces this one at
    // once, saying what changed, so the next Approve is of what is shown (and goes through, with its new ETag)
    if (e instanceof ApiError && (e.code === 'template_changed' || e.code === 'precondition_failed')) {
      let next: LaunchAnswer | null = isDraft(e.body.draft) ? e.body.draft : null;
      try {
        next ??= (await call<LaunchAnswer>('GET', `/launches/${enc(d.id)}`)).body;
      } catch {
        // not readable now: say so below, with the way to draw the view again
      }
      if (next) {
        const fresh = draftArticle(next, onDecided, `Not approved: ${d.template} changed since the draft. The draft below is refreshed onto the version loading now (${draftChanges(d, next)}). Look again, then approve.`);
        article.replaceWith(fresh);
        fresh.querySelector<HTMLElement>('.draft-refreshed')?.focus();
        return;
      }
      out.append(h('p', { class: 'callout error', role: 'alert' }, `Not approved: ${d.template} changed since the draft.`), h('p', {}, h('button', { type: 'button', onclick: onDecided }, 'Show the refreshed draft')));
      return;
    }
    out.append(h('p', { class: 'callout error', role: 'alert' }, `${what}: ${errorText(e)}`));
    if (e instanceof ApiError && e.problems.length) out.append(problemList(e.problems));
  };
  const decide = (form: HTMLFormElement, button: HTMLButtonElement, refused: string, run: () => Promise<string>) => onDecision(form, button, run, onDecided, (e) => void fail(e, refused));

  const approveForm = h(
    'form',
    { class: 'launch-approve', 'aria-label': `Approve the launch of ${d.template}` },
    h('label', { for: approveNote.id }, 'Approve with a note (optional) '),
    approveNote,
    approveButton,
  );
  decide(approveForm, approveButton, 'Not approved', async () => {
    const note = approveNote.value.trim();
    // the ETag of the draft shown: a draft refreshed meanwhile is refused, never approved unseen
    await call('POST', `/launches/${enc(d.id)}/approve`, { ifMatch: d.etag, ...(note ? { body: { note } } : {}) });
    return `Approved: ${runs.length} run${runs.length === 1 ? '' : 's'} of ${d.template}. The conductor is told.`;
  });

  // Dismiss asks first, with the note for the conductor, and the focus on Cancel: it cannot be undone
  const dismiss = dismissAsk({ label: `Dismiss the launch of ${d.template}`, question: `Dismiss this launch of ${d.template}?`, formClass: 'launch-dismiss', askClass: 'launch-dismiss-ask', noteId: `${idBase}-note` });
  decide(dismiss.askForm, dismiss.yes, 'Not dismissed', async () => {
    const note = dismiss.note();
    await call('POST', `/launches/${enc(d.id)}/dismiss`, { body: note ? { note } : {} });
    return `Dismissed the launch of ${d.template}.`;
  });

  const state = d.current_etag === null ? 'no longer in the library' : d.changed ? 'changed since the draft' : 'as drafted';
  article = h(
    'article',
    { class: `proposal launch-draft${d.preview.ok ? '' : ' invalid'}`, 'data-id': d.id, 'aria-labelledby': `${idBase}-h` },
    h(
      'h3',
      { id: `${idBase}-h` },
      h('a', { href: `#/templates/${enc(d.template)}` }, h('code', {}, d.template)),
      ' ',
      h('span', { class: 'tag' }, `${runs.length} run${runs.length === 1 ? '' : 's'}`),
      h('span', { class: `tag${d.changed || d.current_etag === null ? ' invalid' : ''}`, 'data-template-state': state }, `template ${state}`),
    ),
    refreshed ? h('p', { class: 'callout warning draft-refreshed', role: 'alert', tabindex: '-1' }, refreshed) : null,
    d.note ? h('p', { class: 'purpose' }, d.note) : null,
    h('p', { class: 'sentence' }, `Drafted ${d.from ? `by ${d.from} ` : ''}on ${new Date(d.created_at).toLocaleString()}.`),
    d.changed
      ? h('p', { class: 'callout warning' }, `${d.template} changed since the draft. Approving refreshes the draft onto the version loading now and shows it again first.`)
      : null,
    d.preview.ok ? null : h('p', { class: 'callout error' }, 'This draft cannot be approved as it is:'),
    d.preview.problems.length ? problemList(d.preview.problems) : null,
    // deciding is an editor's (me.ts): the others read the draft only
    can('editor') ? h('div', { class: 'actions' }, approveForm, dismiss.form) : null,
    dismiss.ask,
    out,
    runs.map((r) => runCard(r, runs.length)),
  );
  return article;
}

const isDraft = (v: unknown): v is LaunchAnswer => typeof v === 'object' && v !== null && typeof (v as LaunchAnswer).id === 'string' && typeof (v as LaunchAnswer).preview === 'object';

function problemList(problems: readonly Problem[]): HTMLElement {
  return h(
    'ul',
    { class: 'problems launch-problems', 'aria-label': 'Problems' },
    problems.map((p) => h('li', { class: `problem ${p.severity}`, 'data-code': p.code }, h('code', {}, p.code), ' ', h('code', { class: 'path' }, p.path), ' — ', p.message)),
  );
}

const shown = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

/** One run: its inputs, then each node with what it can touch and its prompt folded away, a node that may not run marked. */
function runCard(r: LaunchRun, total: number): HTMLElement {
  const title = `Run ${r.index + 1} of ${total}`;
  return h(
    'section',
    { class: 'launch-run card', 'aria-label': title },
    h('h4', {}, title),
    h('dl', { class: 'launch-inputs' }, Object.entries(r.inputs).flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, Array.isArray(v) ? v.map(shown).join(', ') : shown(v))])),
    h(
      'ul',
      { class: 'launch-nodes' },
      r.nodes.map((n) =>
        h(
          'li',
          { 'data-node': n.id, 'data-may-skip': n.on_path === null ? null : 'true' },
          h('strong', {}, n.id),
          ` (${n.role ?? n.builtin ?? n.tool ?? n.type}${n.model ? `, ${n.model}` : ''})`,
          n.on_path === null ? null : h('span', { class: 'tag' }, `runs only when ${n.on_path} is on PATH`),
          n.holes.length ? h('span', { class: 'tag' }, `left open: ${n.holes.join(', ')}`) : null,
          n.touches.length ? h('span', { class: 'hint' }, ` can touch ${n.touches.join(', ')}`) : null,
          n.prompt === null ? null : h('details', { class: 'launch-prompt' }, h('summary', {}, 'Prompt'), h('pre', { class: 'prompt' }, n.prompt)),
        ),
      ),
    ),
  );
}
