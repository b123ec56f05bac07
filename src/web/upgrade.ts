import { call, enc } from './api.js';
import { clear, h } from './dom.js';
import { threeWayParts } from './merge-three.js';
import type { Problem } from '../schema/errors.js';
import type { RoleAnswer } from '../schema/roles.js';
import type { TemplateAnswer } from '../schema/templates.js';
import type { UpgradePlanAnswer, UpgradeResultAnswer } from '../schema/upgrade.js';
import { errorText, say } from './ui.js';
import { planCounts, planSentence } from './upgrade-banner.js';
import { lineDiffView } from './upgrade-diff.js';
import { can } from './me.js';

/**
 * The Upgrade view (`#/upgrade`; docs/settings-page.md, Upgrade): every copy
 * behind the shipped templates and roles with what an upgrade does with it,
 * the upstream change alone (the older shipped version → today's; a role's
 * role.md), the result against the copy, and one button that upgrades every unedited and clean
 * copy (POST /upgrade with `{}`); a copy that needs a person links to its
 * template, whose rebase preview settles it. Its own small module: no
 * CodeMirror; the diffs are drawn as text when a copy is opened.
 */

type PlannedTemplate = UpgradePlanAnswer['templates'][number];
type PlannedRole = UpgradePlanAnswer['roles'][number];

const OUTCOME: Record<PlannedTemplate['outcome'], { label: string; sentence: string }> = {
  reset: { label: 'unedited', sentence: 'Never edited: the upgrade makes it today’s shipped version.' },
  clean: { label: 'upgrades cleanly', sentence: 'Your edits and the shipped change merge with no conflict, and the result is valid.' },
  conflicts: { label: 'conflicts', sentence: 'Your edits and the shipped change touch the same lines: choose for each in the rebase preview.' },
  invalid: { label: 'merges invalid', sentence: 'Your edits and the shipped change merge, but the result is not valid: fix it in the rebase preview.' },
  no_kept_base: {
    label: 'no kept base',
    sentence: 'The shipped version this copy was saved against is not kept, so the two cannot be merged: reset it to shipped, or acknowledge the change.',
  },
};

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export async function upgradeView(onDone: () => void): Promise<HTMLElement> {
  const plan = (await call<UpgradePlanAnswer>('GET', '/upgrade')).body;
  const c = planCounts(plan);
  const automatic = c.clean + c.reset;
  const button = h('button', { type: 'button', class: 'primary', disabled: automatic === 0 }, 'Upgrade all clean');
  const out = h('div', { class: 'notices', 'aria-live': 'polite' });
  button.addEventListener('click', () => void upgradeAll(button, out, onDone));
  return h(
    'div',
    { class: 'upgrade', 'data-behind': c.total },
    h('p', { class: 'crumbs' }, h('a', { href: '#/' }, 'Library'), ' / upgrade'),
    h('h2', {}, 'Upgrade ', h('span', { class: 'count' }, `${c.total} behind`)),
    c.total
      ? h('p', { class: 'upgrade-sentence' }, `${planSentence(c)}.`)
      : h('p', { class: 'note' }, 'Every copy is on today’s shipped version: nothing to upgrade.'),
    c.total
      ? h(
          'div',
          { class: 'actions' },
          can('editor') ? button : null,
          h('span', { class: 'hint' }, automatic ? `Upgrades the ${plural(automatic, 'copy', 'copies')} marked unedited or upgrades cleanly, in one history entry.` : 'No copy upgrades without you.'),
        )
      : null,
    out,
    plan.templates.length
      ? h('section', { 'aria-labelledby': 'h-upgrade-templates' }, h('h3', { id: 'h-upgrade-templates' }, 'Templates'), plan.templates.map(templateCopy))
      : null,
    plan.roles.length ? h('section', { 'aria-labelledby': 'h-upgrade-roles' }, h('h3', { id: 'h-upgrade-roles' }, 'Roles'), plan.roles.map(roleCopy)) : null,
  );
}

async function upgradeAll(button: HTMLButtonElement, out: HTMLElement, onDone: () => void): Promise<void> {
  button.disabled = true;
  clear(out);
  try {
    const { body } = await call<UpgradeResultAnswer>('POST', '/upgrade', { body: {} });
    // drawn again from the plan now; the message is said after the redraw starts, which clears the last one
    onDone();
    const moved = body.skipped.filter((s) => s.code !== undefined);
    say(
      `Upgraded ${plural(body.applied.length, 'copy', 'copies')}.` +
        (moved.length ? ` ${plural(moved.length, 'copy was', 'copies were')} not: ${moved.map((s) => `${s.name} (${s.reason})`).join('; ')}.` : ''),
      undefined,
      moved.length ? 'warning' : 'success',
    );
  } catch (e) {
    button.disabled = false;
    out.append(h('p', { class: 'callout error', role: 'alert' }, `Not upgraded: ${errorText(e)}`));
  }
}

function outcomeTag(outcome: PlannedTemplate['outcome'], conflicts: number): HTMLElement {
  const label = outcome === 'conflicts' ? plural(conflicts, 'conflict', 'conflicts') : OUTCOME[outcome].label;
  return h('span', { class: `tag upgrade-outcome outcome-${outcome}`, 'data-outcome': outcome }, label);
}

/** The two diffs of a copy: the shipped change alone, and the upgrade against the copy (none without a kept base). */
function diffDetails(p: PlannedTemplate | PlannedRole, load: () => Promise<Texts>, kind: Kind): { upstream: HTMLElement; result: HTMLElement | null } {
  const upstream = h('details', { class: 'upgrade-upstream' }, h('summary', {}, 'The shipped change alone'));
  const result = h('details', { class: 'upgrade-result' }, h('summary', {}, 'The upgrade against your copy'));
  const diffs = lazyDiffs(p, kind, load, upstream, result);
  upstream.addEventListener('toggle', diffs);
  result.addEventListener('toggle', diffs);
  return { upstream, result: p.outcome === 'no_kept_base' ? null : result };
}

function templateCopy(t: PlannedTemplate): HTMLElement {
  const id = `upgrade-t-${t.name}`;
  const load = async (): Promise<Texts> => {
    const { body } = await call<TemplateAnswer>('GET', `/templates/${enc(t.name)}`);
    return { copy: body.source, shipped: body.shipped_source };
  };
  const { upstream, result } = diffDetails(t, load, 'template');
  return h(
    'article',
    { class: `upgrade-copy outcome-${t.outcome}`, 'data-name': t.name, 'data-outcome': t.outcome, 'aria-labelledby': id },
    h('h4', { id }, h('a', { href: `#/templates/${enc(t.name)}` }, h('code', {}, t.name)), ' ', outcomeTag(t.outcome, t.conflicts)),
    h('p', { class: 'sentence' }, OUTCOME[t.outcome].sentence),
    t.outcome === 'conflicts' || t.outcome === 'invalid'
      ? // `/rebase` opens the template with its rebase preview already open (main.ts): one click, not two
        h('p', {}, h('a', { href: `#/templates/${enc(t.name)}/rebase`, class: 'button' }, `Open ${t.name} to rebase it`))
      : null,
    t.outcome === 'invalid' ? problemList(t.problems) : null,
    upstream,
    result,
  );
}

type Kind = 'template' | 'role';

/** The copy's text and today's shipped one (a template's source, a role's role.md). */
interface Texts {
  copy: string;
  shipped: string | null;
}

/** The two diffs, read and drawn the first time either is opened. */
function lazyDiffs(p: PlannedTemplate | PlannedRole, kind: Kind, load: () => Promise<Texts>, upstream: HTMLDetailsElement, result: HTMLDetailsElement): () => void {
  let started = false;
  return () => {
    if (started || !(upstream.open || result.open)) return;
    started = true;
    const wait = () => h('p', { class: 'loading' }, 'Loading…');
    upstream.append(wait());
    result.append(wait());
    void load().then(
      (texts) => fill(p, kind, texts, upstream, result),
      (e: unknown) => {
        for (const d of [upstream, result]) {
          d.querySelector('.loading')?.remove();
          d.append(h('p', { class: 'callout error' }, `Could not load: ${errorText(e)}`));
        }
        started = false;
      },
    );
  };
}

function fill(p: PlannedTemplate | PlannedRole, kind: Kind, texts: Texts, upstream: HTMLDetailsElement, result: HTMLDetailsElement): void {
  for (const d of [upstream, result]) d.querySelector('.loading')?.remove();
  const { copy, shipped } = texts;
  // an unedited copy is the older shipped version itself; an edited one carries it as the plan's kept base
  const before = p.outcome === 'reset' ? copy : (p.base ?? null);
  if (shipped === null || before === null) {
    upstream.append(h('p', { class: 'note' }, 'The shipped version this copy was saved against is not kept: its change alone cannot be shown.'));
    return;
  }
  upstream.append(lineDiffView(before, shipped, `The shipped change to ${p.name}`));
  if (p.outcome === 'reset') {
    result.append(lineDiffView(copy, shipped, `The upgrade of ${p.name} against your copy`));
    return;
  }
  const parts = threeWayParts(copy, before, shipped);
  if (parts.some((x) => x.kind === 'conflict')) {
    result.append(h('p', { class: 'note' }, kind === 'template' ? 'The merge has conflicts: the rebase preview shows each with a choice.' : 'The merge has conflicts: settle them on the role’s page.'));
    return;
  }
  const merged = parts.map((x) => (x.kind === 'clean' ? x.text : '')).join('');
  result.append(lineDiffView(copy, merged, `The upgrade of ${p.name} against your copy`));
}

function roleCopy(r: PlannedRole): HTMLElement {
  const id = `upgrade-r-${r.name}`;
  // a role's diffs are of its role.md; a kit change is listed on the role's page
  const load = async (): Promise<Texts> => {
    const { body } = await call<RoleAnswer>('GET', `/roles/${enc(r.name)}`);
    return { copy: body.role_md, shipped: body.shipped_role_md };
  };
  const { upstream, result } = diffDetails(r, load, 'role');
  return h(
    'article',
    { class: `upgrade-copy outcome-${r.outcome}`, 'data-name': r.name, 'data-kind': 'role', 'data-outcome': r.outcome, 'aria-labelledby': id },
    h('h4', { id }, h('a', { href: `#/roles/${enc(r.name)}` }, h('code', {}, r.name)), ' ', outcomeTag(r.outcome, r.conflicts)),
    h('p', { class: 'sentence' }, OUTCOME[r.outcome].sentence.replace('rebase preview', 'role’s page')),
    upstream,
    result,
  );
}

function problemList(problems: readonly Problem[]): HTMLElement {
  return h(
    'ul',
    { class: 'problems', 'aria-label': 'Problems of the merged text' },
    problems.map((p) => h('li', { class: `problem ${p.severity}`, 'data-code': p.code }, h('code', {}, p.code), ' ', h('code', { class: 'path' }, p.path), ' — ', p.message)),
  );
}
