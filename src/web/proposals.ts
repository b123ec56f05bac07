import { ApiError, call, enc } from './api.js';
import { cardView } from './card-view.js';
import { clear, h } from './dom.js';
import { dismissAsk, onDecision } from './decision.js';
import { unifiedView } from './diff-view.js';
import { NAME_PATTERN } from './names.js';
import { refreshProposalCount } from './proposal-count.js';
import type { ProposalAnswer, ProposalList, ProposalSummary } from '../schema/proposals.js';
import { handOver } from './proposal-handoff.js';
import { errorText } from './ui.js';
import { can } from './me.js';

/**
 * The Proposals view (`#/proposals`): each proposal waiting for a decision
 * with its card and its diff against what it varies, Save to library (under
 * its name or another) and Dismiss with a note; then the decided ones. The
 * header's link shows how many wait (proposal-count.ts).
 */

/** How many pending proposals are drawn in full; the rest are listed by name. */
const SHOWN = 20;

/** The ETag of the template of that name now, or null when none loads under it. */
async function currentEtag(name: string): Promise<string | null> {
  try {
    return (await call('GET', `/templates/${enc(name)}`)).etag;
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return null;
    throw e;
  }
}

/** What the events stream says of a proposal (docs/api.md, Proposals). */
export interface ProposalHint {
  id: string;
  status: string;
  name: string;
}

let redraw: (() => void) | null = null;

/**
 * A proposal made or decided elsewhere (the events stream): the header's
 * count follows; an open view marks a proposal decided in another window and
 * offers to show new ones, rather than redrawing under the operator's typing.
 */
export function proposalHint(kind: 'created' | 'decided', p: ProposalHint): void {
  void refreshProposalCount();
  const view = document.querySelector<HTMLElement>('.proposals');
  if (!view || !redraw) return;
  const again = redraw;
  if (kind === 'decided') {
    const art = view.querySelector<HTMLElement>(`article.proposal[data-id="${CSS.escape(p.id)}"]`);
    if (!art || art.dataset.decided) return;
    art.dataset.decided = p.status;
    for (const b of art.querySelectorAll('button')) b.disabled = true;
    art.querySelector('.notices')?.append(
      h('p', { class: 'callout', role: 'status' }, p.status === 'saved' ? `Saved elsewhere as ${p.name}.` : 'Dismissed elsewhere.'),
    );
    return;
  }
  if (view.querySelector(`article.proposal[data-id="${CSS.escape(p.id)}"]`) || view.querySelector('.proposal-arrived')) return;
  view.querySelector('h2')?.after(
    h('p', { class: 'callout proposal-arrived', role: 'status' }, 'A new proposal arrived. ', h('button', { type: 'button', onclick: again }, 'Show it')),
  );
}

export async function proposalsView(onDecided: () => void): Promise<HTMLElement> {
  redraw = onDecided;
  const [pending, decided] = await Promise.all([
    call<ProposalList>('GET', '/proposals?status=pending'),
    call<ProposalList>('GET', '/proposals?status=decided'),
  ]);
  const waiting = pending.body.proposals;
  const details = await Promise.all(
    waiting.slice(0, SHOWN).map(async (p) => {
      const [{ body }, seen] = await Promise.all([call<ProposalAnswer>('GET', `/proposals/${enc(p.id)}`), currentEtag(p.name)]);
      return { body, seen };
    }),
  );
  return h(
    'div',
    { class: 'proposals' },
    h('p', { class: 'crumbs' }, h('a', { href: '#/' }, 'Library'), ' / proposals'),
    h('h2', {}, 'Proposals ', h('span', { class: 'count' }, `${waiting.length} pending`)),
    waiting.length
      ? h('p', {}, 'Templates a conductor proposed. Nothing is in the library until you save it.')
      : h('p', { class: 'note' }, 'No proposal is waiting for a decision.'),
    details.map(({ body, seen }) => proposalArticle(body, seen, onDecided)),
    waiting.length > SHOWN
      ? h('p', { class: 'note' }, `${waiting.length - SHOWN} more are waiting; decide these first.`)
      : null,
    decided.body.proposals.length
      ? h(
          'section',
          { 'aria-labelledby': 'h-decided' },
          h('h3', { id: 'h-decided' }, 'Decided'),
          h('ul', { class: 'rows', 'aria-label': 'Decided proposals' }, decided.body.proposals.map(decidedRow)),
        )
      : null,
  );
}

function decidedRow(p: ProposalSummary): HTMLElement {
  const what = p.status === 'saved' ? `saved as ${p.saved_as ?? p.name}` : 'dismissed';
  return h(
    'li',
    { class: 'row', 'data-id': p.id, 'data-status': p.status },
    h(
      'div',
      { class: 'row-main' },
      p.status === 'saved' && p.saved_as
        ? h('a', { href: `#/templates/${p.saved_as}`, class: 'name' }, p.name)
        : h('span', { class: 'name' }, p.name),
      h('span', { class: `tag proposal-${p.status}` }, what),
      p.decided_at ? h('span', { class: 'hint' }, new Date(p.decided_at).toLocaleString()) : null,
    ),
    h('p', { class: 'purpose' }, p.purpose),
    p.note ? h('p', { class: 'sentence' }, `Note: ${p.note}`) : null,
  );
}

/** One waiting proposal: who and why, the card, the text diff, and the two decisions. */
function proposalArticle(p: ProposalAnswer, seen: string | null, onDecided: () => void): HTMLElement {
  const idBase = `p-${p.id}`;
  const out = h('div', { class: 'notices', 'aria-live': 'polite' });
  const nameField = h('input', {
    id: `${idBase}-name`,
    value: p.name,
    required: true,
    pattern: NAME_PATTERN,
    autocomplete: 'off',
  });
  // an invalid proposal cannot be saved as it is (the save would be 422): open it in the editor and fix it there
  const errors = p.problems.filter((x) => x.severity === 'error').length;
  const whyNot = p.valid ? null : h('span', { class: 'hint', id: `${idBase}-why` }, `Not valid: ${errors} error${errors === 1 ? '' : 's'}, listed below. Open it in the editor to fix them.`);
  const saveButton = h('button', { type: 'submit', class: 'primary', disabled: !p.valid, 'aria-describedby': p.valid ? null : `${idBase}-why` }, 'Save to library');
  const openButton = h('button', { type: 'button', onclick: () => {
    handOver(p);
    location.hash = `#/templates/${enc(p.name)}`;
  } }, 'Open in editor');

  const fail = (e: unknown, what: string) => {
    clear(out);
    const stale = e instanceof ApiError && e.status === 412;
    out.append(
      h(
        'p',
        { class: 'callout error', role: 'alert' },
        stale ? `Not saved: a template named ${nameField.value.trim()} changed or appeared since this page was loaded. Reload to see it.` : `${what}: ${errorText(e)}`,
      ),
    );
    if (e instanceof ApiError) for (const x of e.problems) out.append(h('p', { class: `problem ${x.severity}` }, h('code', {}, x.code), ' ', x.message));
  };

  const saveForm = h(
    'form',
    { class: 'proposal-save', 'aria-label': `Save ${p.name} to the library` },
    h('label', { for: `${idBase}-name` }, 'Save as '),
    nameField,
    ' ',
    saveButton,
    ' ',
    openButton,
    whyNot,
  );
  const decide = (form: HTMLFormElement, button: HTMLButtonElement, refused: string, run: () => Promise<string>) => onDecision(form, button, run, onDecided, (e) => fail(e, refused));
  decide(saveForm, saveButton, 'Not saved', async () => {
    const name = nameField.value.trim();
    // under its own name the ETag read with the page guards the save; under another, the one there now
    const etag = name === p.name ? seen : await currentEtag(name);
    await call('POST', `/proposals/${enc(p.id)}/save`, {
      body: name === p.name ? {} : { name },
      ...(etag ? { ifMatch: etag } : { ifNoneMatch: '*' as const }),
    });
    return `Saved ${name} to the library.`;
  });

  // Dismiss asks first, with the note for the conductor, and the focus on Cancel: it cannot be undone
  const dismiss = dismissAsk({ label: `Dismiss ${p.name}`, question: `Dismiss the proposal ${p.name}?`, formClass: 'proposal-dismiss', askClass: 'proposal-dismiss-ask', noteId: `${idBase}-note` });
  decide(dismiss.askForm, dismiss.yes, 'Not dismissed', async () => {
    const note = dismiss.note();
    await call('POST', `/proposals/${enc(p.id)}/dismiss`, { body: note ? { note } : {} });
    return `Dismissed the proposal ${p.name}.`;
  });

  const diff = p.card.diff;
  return h(
    'article',
    { class: `proposal${p.valid ? '' : ' invalid'}`, 'data-id': p.id, 'aria-labelledby': `${idBase}-h` },
    h(
      'h3',
      { id: `${idBase}-h` },
      h('code', {}, p.name),
      ' ',
      p.valid ? null : h('span', { class: 'tag invalid' }, 'invalid'),
      seen ? h('span', { class: 'tag' }, `replaces the ${p.name} in the library`) : h('span', { class: 'tag' }, 'new name'),
    ),
    h('p', { class: 'purpose' }, p.purpose),
    h('p', { class: 'sentence' }, `Proposed ${p.from ? `by ${p.from} ` : ''}on ${new Date(p.created_at).toLocaleString()}.`),
    // deciding is an editor's (me.ts): the others read the proposal only
    can('editor') ? h('div', { class: 'actions' }, saveForm, dismiss.form) : null,
    dismiss.ask,
    out,
    p.problems.length
      ? h(
          'ul',
          { class: 'problems', 'aria-label': `Problems of ${p.name}` },
          p.problems.map((x) =>
            h(
              'li',
              { class: `problem ${x.severity}`, 'data-code': x.code },
              h('span', { class: 'sev' }, x.severity),
              ' ',
              h('code', { class: 'code-id' }, x.code),
              x.line ? h('span', { class: 'at' }, ` line ${x.line}`) : null,
              ' ',
              h('span', { class: 'msg' }, x.message),
            ),
          ),
        )
      : null,
    cardView(p.card, { draft: false }),
    diff && !diff.identical && diff.unified !== null
      ? h(
          'details',
          { class: 'proposal-text-diff' },
          h('summary', {}, `The text against ${diff.against.name}`),
          unifiedView(diff.unified, `${p.name} against ${diff.against.name}, as text`),
        )
      : null,
  );
}
