/**
 * Hover for the template editor: what a key means (the schema's description,
 * and whether it is required), what a builtin, profile, tool or capability
 * is, what a node id in a cord or the header names, and what an input
 * referenced in a prompt is.
 */
import { hoverTooltip, type Tooltip } from '@codemirror/view';
import { BUILTINS, isBuiltin } from '../template/catalog/builtins.js';
import { CAPABILITIES, isCapability } from '../template/catalog/capabilities.js';
import { isProfile, PROFILES } from '../template/catalog/profiles.js';
import { isTool, TOOLS } from '../template/catalog/tools.js';
import { spotAt } from './editor-context.js';
import { type Facts, factsOf } from './editor-facts.js';
import { keyInfo } from './editor-schema.js';

const WORD = /[\w.-]/;

export const templateHover = hoverTooltip((view, pos, side): Tooltip | null => {
  const line = view.state.doc.lineAt(pos);
  let start = pos - line.from;
  let end = start;
  while (start > 0 && WORD.test(line.text[start - 1]!)) start--;
  while (end < line.text.length && WORD.test(line.text[end]!)) end++;
  if (start === end || (start === pos - line.from && side < 0) || (end === pos - line.from && side > 0)) return null;
  const word = line.text.slice(start, end);
  const text = view.state.doc.toString();
  const facts = factsOf(text);
  const lines = describe(text, line.from + end, line.text, start, word, facts);
  if (!lines) return null;
  return {
    pos: line.from + start,
    end: line.from + end,
    above: true,
    create: () => {
      const dom = document.createElement('div');
      dom.className = 'cm-template-hover';
      for (const [i, l] of lines.entries()) {
        const p = document.createElement(i === 0 ? 'strong' : 'p');
        p.textContent = l;
        dom.append(p);
      }
      return { dom };
    },
  };
});

/** The hover's lines: a title, then what it is. Exported for the unit tests. */
export function describe(text: string, wordEnd: number, lineText: string, start: number, word: string, facts: Facts): string[] | null {
  const ref = /\{\{\s*inputs\.$/.exec(lineText.slice(0, start));
  if (ref) {
    const input = facts.inputs.find((i) => i.name === word);
    if (!input) return [`inputs.${word}`, 'not a declared input of this template'];
    return [`input ${word}`, `${input.type ?? 'string'}${input.required ? ', required' : ''}`, ...(input.description ? [input.description] : [])];
  }
  const spot = spotAt(text, wordEnd);
  if (spot.kind === 'key') {
    const k = keyInfo(spot.path, word, facts);
    if (!k) return null;
    if (word === 'type' && spot.path[0] === 'nodes') return ['type', 'the node kind: model, builtin or tool'];
    return [`${word}${k.required ? ' (required)' : ''}`, ...(k.description ? [k.description] : [])];
  }
  if (spot.kind !== 'value') return null;
  const key = spot.key;
  if (key === 'builtin' && isBuiltin(word)) {
    const b = BUILTINS[word];
    return [`builtin ${word}`, b.description, `inlets: ${b.inlets.join(', ')}; outlets: ${b.outlets.join(', ')}`];
  }
  if (key === 'profile' && isProfile(word)) return [`profile ${word}`, `touches ${PROFILES[word].join(', ')}`];
  if (key === 'tool' && isTool(word)) return [`tool ${word}`, TOOLS[word]];
  if (key === 'over' && isCapability(word)) return [`capability ${word}`, CAPABILITIES[word]];
  if (key === 'from' || key === 'to' || key === 'entry' || key === 'terminal' || key === 'node') {
    const [id, port] = word.split('.');
    const n = id ? facts.nodes.get(id) : undefined;
    if (!n) return [word, `no node ${id ?? word} in this template`];
    const kind = n.type === 'builtin' ? `builtin ${n.builtin ?? '?'}` : (n.type ?? 'node without a type');
    return [`node ${id}`, kind, `inlets: ${n.inlets.join(', ') || '—'}; outlets: ${n.outlets.join(', ') || '—'}`, ...(port ? [`port ${port}`] : [])];
  }
  const k = key ? keyInfo(spot.path, key, facts) : null;
  return k?.description ? [`${key}: ${word}`, k.description] : null;
}
