/**
 * What the editor's hover says (editor-hover.ts draws it): what a key means
 * (the schema's description, and whether it is required), what a builtin,
 * profile, tool or capability is, what a node id in a cord or the header
 * names, and what an input referenced in a prompt is. No DOM, so the unit
 * tests read it directly.
 */
import { BUILTINS, isBuiltin } from '../template/catalog/builtins.js';
import { CAPABILITIES, isCapability } from '../template/catalog/capabilities.js';
import { isProfile, PROFILES } from '../template/catalog/profiles.js';
import { isTool, TOOLS } from '../template/catalog/tools.js';
import { spotAt } from './editor-context.js';
import type { Facts } from './editor-facts.js';
import { keyInfo } from './editor-schema.js';

/** The hover's lines for `word` (ending at `wordEnd`, starting at `start` in `lineText`): a title, then what it is. */
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
