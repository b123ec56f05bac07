/**
 * The card app (docs/conductor.md, The card in the conversation): an MCP
 * App a host shows beside a propose_template, get_template or draft_launch
 * result. It takes the result from its host over ext-apps' App API and
 * draws what the desk page draws for the operator — the card of
 * src/web/card-view.ts with its graph, each node's role, model, profile and
 * what it can touch, the validator's problems and the diff — or, for a
 * launch draft, its runs. It asks nothing of the desk itself.
 */
import { App, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-with-deps';
import type { Card } from '../schema/card.js';
import type { LaunchAnswer } from '../schema/launches.js';
import type { Problem } from '../schema/errors.js';
import { cardView } from '../web/card-view.js';
import { clear, h } from '../web/dom.js';

type Result = { content?: { type: string; text?: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };

const root = document.getElementById('card') as HTMLElement;

function problemsView(problems: readonly Problem[]): HTMLElement {
  if (!problems.length) return h('p', { class: 'callout ok', role: 'status' }, 'No problems.');
  return h(
    'ul',
    { class: 'problems', 'aria-label': 'Problems' },
    problems.map((p) =>
      h('li', { class: p.severity }, h('strong', {}, p.severity), ' ', h('code', {}, p.code), p.line ? ` line ${p.line}` : '', ': ', h('span', { class: 'message' }, p.message)),
    ),
  );
}

function cardResult(title: string, subtitle: string, card: Card, problems: readonly Problem[]): HTMLElement[] {
  const diff = card.diff && !card.diff.identical && card.diff.unified ? h('details', {}, h('summary', {}, `Text diff against ${card.diff.against.name}`), h('pre', { class: 'unified' }, card.diff.unified)) : null;
  return [h('h1', {}, title), h('p', { class: 'note' }, subtitle), h('h2', {}, 'Problems'), problemsView(problems), h('h2', {}, 'Card'), cardView(card, { draft: false }), diff].filter(
    (e): e is HTMLElement => e !== null,
  );
}

function launchResult(d: LaunchAnswer): HTMLElement[] {
  const runs = d.preview.runs.map((r) =>
    h(
      'section',
      { 'aria-label': `Run ${r.index + 1}` },
      h('h3', {}, `Run ${r.index + 1}`),
      h('pre', { class: 'inputs' }, JSON.stringify(r.inputs, null, 1)),
      h(
        'div',
        { class: 'table-wrap' },
        h(
          'table',
          { class: 'nodes' },
          h('thead', {}, h('tr', {}, ['node', 'role', 'model', 'profile', 'can touch'].map((c) => h('th', { scope: 'col' }, c)))),
          h(
            'tbody',
            {},
            r.nodes.map((n) =>
              h(
                'tr',
                { 'data-node': n.id },
                h('th', { scope: 'row' }, h('code', {}, n.id)),
                h('td', {}, n.role ?? n.builtin ?? n.tool ?? '—'),
                h('td', {}, n.model ?? (n.type === 'model' ? 'from preset' : '—')),
                h('td', {}, n.profile ?? '—'),
                h('td', { class: 'touches' }, n.touches.length ? n.touches.map((t) => h('span', { class: 'chip' }, t)) : 'nothing'),
              ),
            ),
          ),
        ),
      ),
    ),
  );
  return [
    h('h1', {}, `Launch draft of ${d.template}`),
    h('p', { class: 'note' }, `${d.status}, from ${d.from ?? 'a conductor'}${d.note ? ` — ${d.note}` : ''}`),
    h('h2', {}, 'Problems'),
    problemsView(d.preview.problems),
    h('h2', {}, `${d.preview.runs.length} run${d.preview.runs.length === 1 ? '' : 's'} on approval`),
    ...runs,
  ];
}

/** What a result shows: a proposal's or a template's card, a draft's runs, or a refusal's text. */
export function render(result: Result): void {
  clear(root);
  const s = result.structuredContent;
  if (result.isError || !s) {
    const text = (result.content ?? []).map((c) => c.text ?? '').join('\n');
    root.append(h('h1', {}, 'Refused'), h('pre', { class: 'callout error' }, text));
    return;
  }
  if ('preview' in s) {
    root.append(...launchResult(s as unknown as LaunchAnswer));
  } else if ('card' in s) {
    const card = s.card as Card;
    const problems = (s.problems as Problem[] | undefined) ?? card.problems;
    const proposal = typeof s.id === 'string';
    const title = proposal ? `Proposal: ${String(s.name)}` : `Template: ${String(s.name)}`;
    const subtitle = proposal ? `${String(s.status)}, from ${String(s.from ?? 'a conductor')}: ${String(s.purpose ?? '')}` : `${String(s.state)}`;
    root.append(...cardResult(title, subtitle, card, problems));
  } else {
    root.append(h('pre', {}, JSON.stringify(s, null, 1)));
  }
}

const app = new App({ name: 'desk-library template card', version: '1.0.0' }, {}, { autoResize: true });
app.ontoolresult = (params) => render(params as Result);
void app.connect(new PostMessageTransport(window.parent, window.parent));
