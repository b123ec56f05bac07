import { ApiError, call, enc } from './api.js';
import { cardView } from './card-view.js';
import { clear, h } from './dom.js';
import { dismissAsk, onDecision } from './decision.js';
import { unifiedView } from './diff-view.js';
import { NAME_PATTERN } from './names.js';
import { refreshProposalCount } from './proposal-count.js';
import type { ProposalAnswer, ProposalList, ProposalSummary } from '../schema/proposals.js';
import type { ProposalHandoff } from './proposal-handoff.js';
import { type Impact, impactOf, replacedDiffView } from './proposal-impact.js';
import type { TemplateList } from '../schema/templates.js';
import { stateInfo } from './states.js';
import { errorText } from './ui.js';
import { can } from './me.js';
import { decidedRow, pendingAndDecided, recordsPage, SHOWN } from './records-page.js';

/**
 * The Proposals view (`#/proposals`): each proposal waiting for a decision
 * with its card and its diff against what it varies, Save to library (under
 * its name or another) and Dismiss with a note; then the decided ones. The
 * header's link shows how many wait (proposal-count.ts).
 */


/** What the events stream says of a proposal (docs/api.md, Proposals). */
export interface ProposalHint {
  id: string;
  status: string;
  name: string;
}

/**
 * A proposal made or decided elsewhere (the events stream): the header's
 * count follows; an open view marks a proposal decided in another window and
 * offers to show new ones (`again` draws the view anew), rather than
 * redrawing under the operator's typing.
 */
export function proposalHint(kind: 'created' | 'decided', p: ProposalHint, again: () => void): void {
  void refreshProposalCount();
  const view = document.querySelector<HTMLElement>('.proposals');
  if (!view) return;
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

/** `handoff` takes a proposal to the template page ("Open in editor"); `onDecided` draws the view anew. */
export async function proposalsView(onDecided: () => void, handoff: ProposalHandoff): Promise<HTMLElement> {
  const [{ waiting, decided }, library] = await Promise.all([pendingAndDecided<ProposalList, 'proposals'>('/proposals', 'proposals'), call<TemplateList>('GET', '/templates')]);
  // a name the library does not list is new: no request for it, which could only be a 404
  const names = new Set(library.body.templates.map((t) => t.name));
  const details = await Promise.all(
    waiting.slice(0, SHOWN).map(async (p) => {
      const { body } = await call<ProposalAnswer>('GET', `/proposals/${enc(p.id)}`);
      return { body, impact: await impactOf(body.name, body.source, names) };
    }),
  );
  return recordsPage({
    kind: 'proposals',
    title: 'Proposals',
    pending: waiting.length,
    intro: 'Templates a conductor proposed. Nothing is in the library until you save it.',
    none: 'No proposal is waiting for a decision.',
    articles: details.map(({ body, impact }) => proposalArticle(body, impact, names, onDecided, handoff)),
    decided: { id: 'h-decided', label: 'Decided proposals', rows: decided.map(decidedProposal) },
  });
}

function decidedProposal(p: ProposalSummary): HTMLElement {
  // what the save replaced (the record keeps it): an edited copy is named, so it is not taken for a new name
  const over = p.replaced ? `, over the ${stateInfo(p.replaced.state).label} copy` : '';
  const what = p.status === 'saved' ? `saved as ${p.saved_as ?? p.name}${over}` : 'dismissed';
  return decidedRow(
    p,
    p.status === 'saved' && p.saved_as ? h('a', { href: `#/templates/${p.saved_as}`, class: 'name' }, p.name) : h('span', { class: 'name' }, p.name),
    h('span', { class: `tag proposal-${p.status}` }, what),
    h('p', { class: 'purpose' }, p.purpose),
    p.note ? h('p', { class: 'sentence' }, `Note: ${p.note}`) : null,
  );
}

/** A save the operator called off at the question: nothing was sent. */
class NotNow extends Error {}

/**
 * Asks in place before a save drops the operator's lines, naming them; the
 * focus on Cancel (a stray Enter loses nothing), Escape cancels. Answers
 * whether to go on.
 */
function askOver(where: HTMLElement, name: string, lost: readonly string[]): Promise<boolean> {
  return new Promise((resolve) => {
    clear(where);
    const end = (yes: boolean) => {
      clear(where);
      resolve(yes);
    };
    const cancel = h('button', { type: 'button', onclick: () => end(false) }, 'Cancel');
    const shown = lost.slice(0, 8);
    const box = h(
      'div',
      { class: 'callout confirm replace-ask', role: 'group', 'aria-label': 'Confirm' },
      h('p', {}, `Save over your edited ${name}? ${lost.length} line${lost.length === 1 ? '' : 's'} of yours go${lost.length === 1 ? 'es' : ''}; History can restore them afterwards.`),
      h('ul', { class: 'lost-lines' }, shown.map((l) => h('li', {}, h('code', {}, l.trim())))),
      lost.length > shown.length ? h('p', { class: 'note' }, `and ${lost.length - shown.length} more, marked in the diff below.`) : null,
      h('p', { class: 'actions' }, h('button', { type: 'button', class: 'danger', onclick: () => end(true) }, 'Yes, save over it'), cancel),
    );
    box.addEventListener('keydown', (ev) => {
      if (ev.key === 'Escape') end(false);
    });
    where.append(box);
    cancel.focus();
  });
}

/** The card's sentence for what saving does to the library as it stands. */
function impactTag(name: string, i: Impact): HTMLElement {
  const text =
    i.kind === 'new' ? 'new name' : i.kind === 'same' ? `same as the current ${name}` : i.kind === 'unedited' ? `replaces the ${name} in the library (nothing of yours in it)` : 'replaces an edited copy';
  return h('span', { class: `tag${i.kind === 'edited' ? ' warning' : ''}`, 'data-impact': i.kind }, text);
}

/** One waiting proposal: who and why, what saving does to the library, the card, the text diffs, and the two decisions. */
function proposalArticle(p: ProposalAnswer, impact: Impact, names: ReadonlySet<string>, onDecided: () => void, handoff: ProposalHandoff): HTMLElement {
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
    handoff.handOver(p);
    location.hash = `#/templates/${enc(p.name)}`;
  } }, 'Open in editor');

  const fail = (e: unknown, what: string) => {
    if (e instanceof NotNow) {
      saveButton.focus();
      return;
    }
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
    // under its own name, the copy whose diff the card shows; under another, the copy there now
    const over = name === p.name ? impact : await impactOf(name, p.source, names);
    // the operator's lines would go: asked first, naming them
    if (over.kind === 'edited' && (over.lost.length > 0 || over.current.state === 'diverged') && !(await askOver(out, name, over.lost))) throw new NotNow();
    // the ETag of that copy guards the save: a change made since it was read is a 412, never overwritten
    const etag = over.kind === 'new' ? null : over.etag;
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
      impactTag(p.name, impact),
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
    impact.kind === 'edited' ? replacedPart(p, impact) : null,
    cardView(p.card, { draft: false }),
    impact.kind === 'unedited'
      ? h('details', { class: 'proposal-replaced-diff' }, h('summary', {}, `The text against the ${p.name} in the library`), replacedDiffView(impact.current.source, p.source, [], `${p.name} proposed against the copy in the library`))
      : null,
    diff && !diff.identical && diff.unified !== null
      ? h(
          'details',
          { class: 'proposal-text-diff' },
          h('summary', {}, `The text against its base, ${diff.against.name}`),
          unifiedView(diff.unified, `${p.name} against ${diff.against.name}, as text`),
        )
      : null,
  );
}

/** What saving would do to an edited copy: the sentence, and the proposal against that copy with the operator's lines marked. */
function replacedPart(p: ProposalAnswer, i: Extract<Impact, { kind: 'edited' }>): HTMLElement {
  const n = i.lost.length;
  return h(
    'section',
    { class: 'callout warning proposal-replaces', 'aria-label': `What saving does to your ${p.name}` },
    h(
      'p',
      {},
      h('strong', {}, `Saving replaces your edited ${p.name}`),
      ` (${i.current.state.replaceAll('_', ' ')}): `,
      n ? `${n} line${n === 1 ? '' : 's'} of yours would go, marked “← yours” below.` : 'every line of yours is kept in the proposal.',
    ),
    replacedDiffView(i.current.source, p.source, i.lost, `${p.name} proposed against your copy`),
  );
}
