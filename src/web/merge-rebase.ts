import { yaml } from '@codemirror/lang-yaml';
import { defaultHighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { EditorView, lineNumbers } from '@codemirror/view';
import { call, enc } from './api.js';
import { clear, h } from './dom.js';
import { errorCount, position, sortProblems } from './format.js';
import { styleNonce } from './csp-nonce.js';
import { type Compare, type CompareViews, compareView } from './merge-compare.js';
import { type Conflict, conflictsOf, freshResolutions, type Resolution, resolve, unresolved } from './merge-resolve.js';
import { conflictFieldset } from './merge-conflict.js';
import type { Card } from '../schema/card.js';
import type { Problem } from '../schema/errors.js';
import type { RebaseAnswer, TemplateAnswer } from '../schema/templates.js';
import type { PageValidator } from './validator.js';

/**
 * The rebase preview: the copy merged onto today's shipped version, each
 * conflict offered as a choice (keep mine, take shipped, edit both) in its
 * place, and the result compared with the copy. The result is checked by the
 * page's validator; "Use this" is enabled only when every conflict has a
 * choice and the result has no errors, and it puts the text in the editor,
 * unsaved: Save then writes it with the ETag the page holds, so a change made
 * elsewhere meanwhile is a conflict, never overwritten.
 */

export type RebaseStatus = 'choose' | 'checking' | 'valid' | 'invalid' | 'unchecked';

export interface RebaseHandlers {
  use: (merged: string) => void;
  close: () => void;
}

/** The validator's problems; the service's (POST …/propose) if the page's cannot run. */
async function check(validator: PageValidator, source: string, name: string): Promise<Problem[]> {
  try {
    return await validator.checkSource(source, name);
  } catch {
    const { body } = await call<Card>('POST', '/templates/propose', { body: { name, source } });
    return body.problems;
  }
}


/** POST …/rebase and the copy as saved; throws the API's error (409 nothing_to_rebase, no_kept_base). */
export async function rebasePreview(name: string, validator: PageValidator, compares: CompareViews, on: RebaseHandlers): Promise<HTMLElement> {
  const [{ body }, { body: copy }] = await Promise.all([
    call<RebaseAnswer>('POST', `/templates/${enc(name)}/rebase`, { body: {} }),
    call<TemplateAnswer>('GET', `/templates/${enc(name)}`),
  ]);
  return mergeChoices({ name, parts: body.parts, mine: copy.source, validator, compares, ...on });
}

/** What a merge is of: the rebase onto today's shipped version unless told otherwise. */
export interface MergeChoicesOptions extends RebaseHandlers {
  /** the template, for the validator */
  name: string;
  /** the page's validator (main.ts makes it) */
  validator: PageValidator;
  /** the page's compare views, which the result's comparison joins */
  compares: CompareViews;
  parts: RebaseAnswer['parts'];
  /** the text the result is compared with ("your copy") */
  mine: string;
  /** the region's name; default `Rebase preview` */
  region?: string;
  heading?: string;
  /** the other side: its caption over its lines, and the choice that takes them */
  theirs?: { caption: string; take: string; base: string };
  /** what the text compared with is called; default `your copy` */
  mineLabel?: string;
}

const SHIPPED = { caption: 'Today’s shipped', take: 'Take shipped', base: 'The shipped lines your copy started from' };

/**
 * Merge parts settled by choice (the rebase preview's view, also the
 * conflict of two tabs' saves: template-view.ts): each conflict a choice in
 * its place, the result compared with `mine` and checked, and "Use this"
 * once it is valid.
 */
export function mergeChoices(o: MergeChoicesOptions): HTMLElement {
  const { name, parts } = o;
  const on: RebaseHandlers = o;
  const theirs = o.theirs ?? SHIPPED;
  const mineLabel = o.mineLabel ?? 'your copy';
  const copy = { source: o.mine };
  const conflicts = conflictsOf(parts);
  const res = freshResolutions(parts);
  const n = conflicts.length;

  const status = h('p', { class: 'merge-status', role: 'status' });
  const problemList = h('ul', { class: 'problems', 'aria-label': 'Problems in the result' });
  const resultOut = h('div', { class: 'merge-result' });
  const useButton = h('button', { type: 'button', class: 'primary', disabled: true }, 'Use this');
  const heading = h('h3', { tabindex: -1 }, o.heading ?? 'Your copy merged onto today’s shipped version');
  const section = h(
    'section',
    { class: 'callout rebase', 'aria-label': o.region ?? 'Rebase preview', 'data-conflicts': n },
    heading,
    h(
      'p',
      {},
      n === 0 ? 'No conflicts.' : `${n} conflict${n === 1 ? '' : 's'}: both sides changed the same lines. Choose for each how to settle it.`,
      ' Nothing is written until you save.',
    ),
  );

  let result: string | null = null;
  let compare: Compare | null = null;
  let seq = 0;
  const editors: EditorView[] = [];
  const dispose = () => {
    compare?.destroy();
    for (const e of editors) e.destroy();
  };
  const close = () => {
    dispose();
    on.close();
  };

  const setStatus = (st: RebaseStatus, text: string) => {
    section.dataset.status = st;
    status.textContent = text;
    useButton.disabled = st !== 'valid';
  };

  const showProblems = (problems: Problem[]) => {
    clear(problemList);
    for (const p of sortProblems(problems)) {
      problemList.append(
        h('li', { class: `problem ${p.severity}`, 'data-code': p.code, 'data-line': p.line ?? '' }, h('span', { class: 'sev' }, p.severity), ' ', h('code', {}, p.code), ` at ${position(p)}: ${p.message}`),
      );
    }
  };

  const update = async () => {
    const mine = ++seq;
    result = resolve(parts, res);
    showProblems([]);
    if (result === null) {
      const left = unresolved(res);
      setStatus('choose', `Choose for ${left} more conflict${left === 1 ? '' : 's'}; the result shows when each has a choice.`);
      compare?.destroy();
      compare = null;
      clear(resultOut);
      resultOut.append(h('p', { class: 'note' }, 'The result shows here once every conflict has a choice.'));
      return;
    }
    if (compare) compare.setAfter(result);
    else {
      clear(resultOut);
      compare = compareView({ before: copy.source, after: result, beforeLabel: mineLabel, afterLabel: 'the result' }, o.compares);
      resultOut.append(compare.el);
    }
    setStatus('checking', 'Checking the result…');
    try {
      const problems = await check(o.validator, result, name);
      if (mine !== seq) return; // a later choice owns the status
      const errors = errorCount(problems);
      showProblems(problems);
      if (errors === 0) setStatus('valid', problems.length ? 'The result is valid (with warnings, listed below).' : 'The result is valid.');
      else setStatus('invalid', `The result is not valid: ${errors} error${errors === 1 ? '' : 's'}, listed below. Change a choice or the edit.`);
    } catch (e) {
      if (mine !== seq) return;
      setStatus('unchecked', `Could not check the result: ${e instanceof Error ? e.message : String(e)}`);
    }
  };

  if (n > 0) {
    section.append(h('ol', { class: 'merge-conflicts' }, conflicts.map((c, i) => h('li', {}, conflictChoice(c, i, n, parts, res, () => void update(), editors, theirs)))));
  }
  section.append(
    h('h4', {}, `The result against ${mineLabel}`),
    resultOut,
    status,
    problemList,
    h(
      'p',
      { class: 'actions' },
      useButton,
      h('button', { type: 'button', onclick: close }, 'Close'),
    ),
  );
  useButton.addEventListener('click', () => {
    if (result === null || section.dataset.status !== 'valid') return;
    const text = result;
    dispose();
    on.use(text);
  });
  void update();
  // the preview opens below the toolbar; move focus to it once it is on the page
  setTimeout(() => {
    if (heading.isConnected) heading.focus();
  }, 0);
  return section;
}

/** One conflict (merge-conflict.ts), its "Edit both" a YAML editor. */
function conflictChoice(
  c: Conflict,
  i: number,
  n: number,
  parts: RebaseAnswer['parts'],
  res: Resolution[],
  changed: () => void,
  editors: EditorView[],
  theirs: { caption: string; take: string; base: string },
): HTMLElement {
  return conflictFieldset({
    conflict: c,
    parts,
    index: i,
    resolution: res[i]!,
    group: `rebase-conflict-${i + 1}`,
    legend: `Conflict ${i + 1} of ${n}`,
    editLabel: `Your lines for conflict ${i + 1}`,
    attrs: { 'data-conflict': i + 1 },
    theirs,
    editors,
    changed,
    editor: (parent, doc, label, onChange) =>
      new EditorView({
        doc,
        parent,
        extensions: [
          styleNonce(),
          lineNumbers(),
          yaml(),
          syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
          EditorView.lineWrapping,
          EditorView.contentAttributes.of({ 'aria-label': label }),
          EditorView.updateListener.of((u) => {
            if (u.docChanged) onChange(u.state.doc.toString());
          }),
        ],
      }),
  });
}
