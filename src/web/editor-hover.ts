/**
 * Hover for the template editor: the word under the pointer, described by
 * editor-describe.ts from the schema, the catalogues and the text itself.
 */
import { hoverTooltip, type Tooltip } from '@codemirror/view';
import { describe } from './editor-describe.js';
import type { FactsReader } from './editor-facts.js';

const WORD = /[\w.-]/;

/** Hover over the editor whose facts `reader` reads. */
export const templateHover = (reader: FactsReader) =>
  hoverTooltip((view, pos, side): Tooltip | null => {
    const line = view.state.doc.lineAt(pos);
    let start = pos - line.from;
    let end = start;
    while (start > 0 && WORD.test(line.text[start - 1]!)) start--;
    while (end < line.text.length && WORD.test(line.text[end]!)) end++;
    if (start === end || (start === pos - line.from && side < 0) || (end === pos - line.from && side > 0)) return null;
    const word = line.text.slice(start, end);
    const text = view.state.doc.toString();
    const facts = reader.of(text);
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
