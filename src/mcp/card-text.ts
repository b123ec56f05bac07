/**
 * The card in words, for hosts that show only a tool's text (docs/conductor.md,
 * The card in the conversation): the same facts the card app draws — each
 * node with its role, model, profile and what it can touch, the cords, the
 * problems, and what changed against the template it is diffed against.
 */
import type { Card } from '../schema/card.js';
import type { LaunchRun } from '../schema/launch.js';

const list = (xs: readonly string[]) => (xs.length ? xs.join(', ') : 'none');

export function cardText(card: Card): string {
  const lines = [`card of ${card.name}: ${card.valid ? 'valid' : 'not valid'}, ${card.nodes.length} nodes, ${card.cords.length} cords${card.ticket ? ', one run per ticket' : ''}`];
  for (const n of card.nodes) {
    const what = n.type === 'model' ? `role ${n.role ?? '—'}, model ${n.model ?? 'from preset'}, profile ${n.profile ?? '—'}` : (n.builtin ?? n.tool ?? n.type);
    lines.push(`- ${n.id} (${n.type}: ${what}) can touch ${list(n.touches)}`);
  }
  lines.push(`cords: ${list(card.cords.map((c) => `${c.from} → ${c.to}`))}`);
  for (const p of card.problems) lines.push(`${p.severity} ${p.code}${p.line ? ` (line ${p.line})` : ''} at ${p.path || '/'}: ${p.message}`);
  const d = card.diff;
  if (d) {
    const g = d.graph;
    lines.push(
      d.identical
        ? `identical to ${d.against.name} (${d.against.kind})`
        : `against ${d.against.name} (${d.against.kind}): nodes added ${list(g.nodes.added.map((n) => n.id))}; removed ${list(g.nodes.removed.map((n) => n.id))}; changed ${list(g.nodes.changed.map((n) => `${n.id} (${n.changes.map((c) => c.field).join(', ')})`))}; cords added ${list(g.cords.added.map((c) => `${c.from} → ${c.to}`))}; removed ${list(g.cords.removed.map((c) => `${c.from} → ${c.to}`))}`,
    );
  }
  return lines.join('\n');
}

/** A draft's runs in words: each run's inputs and its nodes with what they can touch. */
export function runsText(runs: readonly LaunchRun[]): string {
  return runs
    .map((r) => `run ${r.index + 1} ${JSON.stringify(r.inputs)}: ${r.nodes.map((n) => `${n.id} (${n.role ?? n.builtin ?? n.tool ?? n.type}${n.profile ? `, ${n.profile}` : ''})`).join(', ')}`)
    .join('\n');
}
