import { ApiError, call, enc } from './api.js';
import { clear, h } from './dom.js';
import type { Card } from '../schema/card.js';
import type { LaunchPreviewAnswer, LaunchRun } from '../schema/launch.js';
import type { Problem } from '../schema/errors.js';
import { errorText } from './ui.js';

/**
 * The Launch preview tab: a form built from the template's input
 * declarations, Preview, then the problems and the runs as cards with their
 * folded prompts. Every value and prompt is set as text (text nodes), never
 * as HTML: a prompt is whatever the inputs made it.
 */
type Input = Card['header']['inputs'][number];

export interface LaunchPanelOptions {
  name: string;
  card: Card;
  /** the ETag of the version shown: sent as If-Match so the preview is of this version */
  etag: string | null;
}

export function fillLaunchPanel(panel: HTMLElement, o: LaunchPanelOptions): void {
  clear(panel);
  const inputs = o.card.header.inputs;
  const fields = inputs.map((d) => field(d));
  const out = h('div', { class: 'launch-out', 'aria-live': 'polite' });
  const button = h('button', { type: 'submit', class: 'primary' }, 'Preview');
  const form = h(
    'form',
    {
      class: 'launch-form',
      'aria-label': `Launch inputs for ${o.name}`,
      onsubmit: (ev: Event) => {
        ev.preventDefault();
        void run();
      },
    },
    inputs.length === 0 ? h('p', { class: 'note' }, 'This template declares no inputs.') : null,
    fields.map((f) => f.el),
    h('p', { class: 'actions' }, button),
  );
  panel.append(
    h('p', { class: 'note' }, 'What a launch with these inputs would start: nothing is launched or written.'),
    form,
    out,
  );

  async function run(): Promise<void> {
    button.disabled = true;
    clear(out);
    out.append(h('p', {}, 'Previewing…'));
    const values: Record<string, unknown> = {};
    const warnings: Warning[] = [];
    for (const f of fields) {
      const v = f.value();
      if (v !== undefined) values[f.name] = v;
      warnings.push(...(f.warnings?.() ?? []));
    }
    const said = warnings.length
      ? h(
          'ul',
          { class: 'callout warning launch-warnings', 'aria-label': 'Warnings about the inputs' },
          warnings.map((w) => h('li', { 'data-code': w.code, 'data-input': w.input }, w.text)),
        )
      : null;
    try {
      const { body } = await call<LaunchPreviewAnswer>('POST', `/templates/${enc(o.name)}/launch-preview`, {
        body: { inputs: values },
        ifMatch: o.etag,
      });
      clear(out);
      if (said) out.append(said);
      out.append(result(body));
    } catch (e) {
      clear(out);
      if (e instanceof ApiError && e.status === 412) out.append(h('p', { class: 'callout error', role: 'alert' }, 'This template changed since the page read it; reload it to preview the saved version.'));
      else if (e instanceof ApiError && e.status === 409) out.append(h('p', { class: 'callout error', role: 'alert' }, 'The saved template is not valid, so it cannot be launched. Fix its problems first.'), problemList(e.problems));
      else out.append(h('p', { class: 'callout error', role: 'alert' }, `No preview: ${errorText(e)}`));
    } finally {
      button.disabled = false;
    }
  }
}

interface Field {
  name: string;
  el: HTMLElement;
  /** the value to send, or undefined to leave the input out (its default applies) */
  value(): unknown;
  /** what the value as sent leaves out or repeats (a list's blank lines, an item twice): said before the result */
  warnings?(): Warning[];
}

/** A page-side warning about what was typed: a code to find it by, and what it says. */
interface Warning {
  code: 'list.blank_lines' | 'list.duplicate';
  input: string;
  text: string;
}

function field(d: Input): Field {
  const id = `launch-input-${d.name}`;
  const hint = [d.type, d.required ? 'required' : 'optional', d.type === 'list' ? `one item per line${d.runs === 'each' ? ', one run per item' : ', one run for all'}` : null]
    .filter(Boolean)
    .join(', ');
  const label = h('label', { for: id }, d.name, ' ', h('span', { class: 'hint' }, `(${hint})`));
  const wrap = (control: HTMLElement) =>
    h('p', { class: 'launch-field' }, label, d.description ? h('span', { class: 'hint', id: `${id}-desc` }, ` ${d.description}`) : null, h('br', {}), control);
  const describedBy = d.description ? `${id}-desc` : null;

  if (d.one_of && d.one_of.length > 0) {
    const select = h('select', { id, 'aria-describedby': describedBy }, h('option', { value: '' }, d.required ? '— choose —' : '(leave out)'));
    d.one_of.forEach((v, i) => {
      select.append(h('option', { value: String(i), selected: d.default !== undefined && JSON.stringify(v) === JSON.stringify(d.default) }, shown(v)));
    });
    return { name: d.name, el: wrap(select), value: () => (select.value === '' ? undefined : d.one_of?.[Number(select.value)]) };
  }
  if (d.type === 'boolean' && !d.required) {
    // three states: an optional boolean left unset stays absent (its default, or none, applies), which a checkbox cannot say
    const select = h(
      'select',
      { id, 'aria-describedby': describedBy },
      h('option', { value: '', selected: d.default === undefined }, d.default === undefined ? '(leave out)' : `(leave out: ${String(d.default)})`),
      h('option', { value: 'true' }, 'true'),
      h('option', { value: 'false' }, 'false'),
    );
    return { name: d.name, el: wrap(select), value: () => (select.value === '' ? undefined : select.value === 'true') };
  }
  if (d.type === 'boolean') {
    const box = h('input', { id, type: 'checkbox', checked: d.default === true, 'aria-describedby': describedBy });
    return { name: d.name, el: wrap(box), value: () => box.checked };
  }
  if (d.type === 'list') {
    const lines = Array.isArray(d.default) ? d.default.map(shown).join('\n') : '';
    const area = h('textarea', { id, rows: 4, cols: 50, 'aria-describedby': describedBy });
    area.value = lines;
    const each = d.runs === 'each';
    return {
      name: d.name,
      el: wrap(area),
      value: () => {
        const items = area.value.split('\n').map((l) => l.trim()).filter((l) => l !== '');
        return items.length === 0 && area.value.trim() === '' ? undefined : items;
      },
      warnings: () => {
        const lines = area.value.replace(/\n+$/, '').split('\n');
        const out: Warning[] = [];
        const blank = lines.filter((l) => l.trim() === '').length;
        if (blank > 0 && lines.some((l) => l.trim() !== '')) {
          out.push({ code: 'list.blank_lines', input: d.name, text: `${d.name}: ${blank} blank line${blank === 1 ? ' is' : 's are'} left out; each other line is one item.` });
        }
        const seen = new Set<string>();
        const twice = new Set<string>();
        for (const l of lines.map((x) => x.trim()).filter(Boolean)) (seen.has(l) ? twice : seen).add(l);
        if (twice.size) {
          out.push({
            code: 'list.duplicate',
            input: d.name,
            text: `${d.name}: ${[...twice].join(', ')} ${twice.size === 1 ? 'is' : 'are'} listed more than once${each ? ', so the same item would start more than one run' : ''}.`,
          });
        }
        return out;
      },
    };
  }
  const numeric = d.type === 'number' || d.type === 'integer';
  // a text box even for numbers: the service judges the value (input.type), and a huge one is not rounded here
  const box = h('input', { id, type: 'text', inputmode: numeric ? 'decimal' : null, 'aria-describedby': describedBy });
  box.value = d.default === undefined ? '' : shown(d.default);
  return {
    name: d.name,
    el: wrap(box),
    value: () => {
      if (box.value === '') return undefined;
      if (!numeric) return box.value;
      const n = Number(box.value.trim());
      return box.value.trim() !== '' && Number.isFinite(n) ? n : box.value;
    },
  };
}

function shown(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function result(a: LaunchPreviewAnswer): HTMLElement {
  const n = a.runs.length;
  return h(
    'div',
    { class: 'launch-result', 'data-ok': String(a.ok) },
    h('p', { class: 'launch-summary' }, a.ok ? `${n} run${n === 1 ? '' : 's'} would start.` : 'No runs: fix the inputs below.'),
    a.problems.length ? problemList(a.problems) : null,
    a.runs.map((r) => runCard(r, n)),
  );
}

function problemList(problems: readonly Problem[]): HTMLElement {
  return h(
    'ul',
    { class: 'problems launch-problems', 'aria-label': 'Problems' },
    problems.map((p) =>
      h('li', { class: `problem ${p.severity}`, 'data-code': p.code }, h('code', {}, p.code), ' ', h('code', { class: 'path' }, p.path), ' — ', p.message),
    ),
  );
}

function runCard(r: LaunchRun, total: number): HTMLElement {
  const title = `Run ${r.index + 1} of ${total}`;
  return h(
    'section',
    { class: 'launch-run card', 'aria-label': title },
    h('h3', {}, title),
    h(
      'dl',
      { class: 'launch-inputs' },
      Object.entries(r.inputs).flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, Array.isArray(v) ? v.map(shown).join(', ') : shown(v))]),
    ),
    h(
      'ul',
      { class: 'launch-nodes' },
      r.nodes.map((n) =>
        h(
          'li',
          { 'data-node': n.id, 'data-may-not-run': n.on_path ? 'true' : null },
          h('strong', {}, n.id),
          ` (${n.role ?? n.builtin ?? n.tool ?? n.type})`,
          // a node with a condition may not run: said beside it, not listed as if it would
          n.on_path ? h('span', { class: 'tag warning may-not-run' }, `runs only when ${n.on_path} is on PATH`) : null,
          n.touches.length ? h('span', { class: 'hint' }, ` can touch ${n.touches.join(', ')}`) : null,
          n.prompt === null ? null : h('pre', { class: 'prompt' }, n.prompt),
        ),
      ),
    ),
  );
}
