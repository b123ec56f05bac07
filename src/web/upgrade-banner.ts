import { call } from './api.js';
import { clear, h } from './dom.js';
import type { UpgradePlanAnswer } from '../schema/upgrade.js';

/**
 * The library's banner while copies are behind the shipped templates: how
 * many, and what an upgrade would do with them, with a link to the Upgrade
 * view (upgrade.ts). Hidden when the plan is empty or cannot be read: the
 * list never waits for it.
 */

export interface PlanCounts {
  total: number;
  /** `clean`: merged with no conflict, and valid */
  clean: number;
  /** `reset`: an unedited copy, it becomes today's shipped */
  reset: number;
  /** `conflicts`, `invalid`, `no_kept_base`: a person decides */
  needed: number;
}

export function planCounts(plan: UpgradePlanAnswer): PlanCounts {
  const all = [...plan.templates, ...plan.roles];
  const n = (o: string) => all.filter((c) => c.outcome === o).length;
  const clean = n('clean');
  const reset = n('reset');
  return { total: all.length, clean, reset, needed: all.length - clean - reset };
}

/** "7 copies are behind the shipped templates: 4 upgrade cleanly, 2 are unedited, 1 needs you" (parts with none left out). */
export function planSentence(c: PlanCounts): string {
  const one = (n: number, single: string, plural: string) => `${n} ${n === 1 ? single : plural}`;
  const parts = [
    c.clean ? one(c.clean, 'upgrades cleanly', 'upgrade cleanly') : '',
    c.reset ? one(c.reset, 'is unedited', 'are unedited') : '',
    c.needed ? one(c.needed, 'needs you', 'need you') : '',
  ].filter(Boolean);
  return `${one(c.total, 'copy is', 'copies are')} behind the shipped templates: ${parts.join(', ')}`;
}

/** The banner, empty and hidden until the plan is read. */
export function upgradeBanner(): HTMLElement {
  const el = h('div', { class: 'callout warning upgrade-banner', hidden: true });
  void refreshUpgradeBanner(el);
  return el;
}

/** Reads the plan again and redraws the banner in `el` (the banner itself, or a view holding one). */
export async function refreshUpgradeBanner(el: Element): Promise<void> {
  const banner = el.classList.contains('upgrade-banner') ? el : el.querySelector('.upgrade-banner');
  if (!(banner instanceof HTMLElement)) return;
  let plan: UpgradePlanAnswer;
  try {
    plan = (await call<UpgradePlanAnswer>('GET', '/upgrade')).body;
  } catch {
    // a nicety: the list and each entry's state say the same, one by one
    return;
  }
  const c = planCounts(plan);
  banner.hidden = c.total === 0;
  banner.dataset.behind = String(c.total);
  clear(banner);
  if (c.total === 0) return;
  banner.append(h('span', { class: 'upgrade-sentence' }, `${planSentence(c)}.`), ' ', h('a', { href: '#/upgrade' }, 'Review the upgrade'));
}
