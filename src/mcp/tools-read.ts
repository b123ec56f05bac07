/**
 * The tools that read: the templates a conductor may draft a launch of, one
 * template with its card, and the validator as the save would judge a text.
 * They write nothing and need no decision.
 */
import { DeskError } from '../errors.js';
import { templateAnswer } from '../library/index.js';
import type { TemplateDetail } from '../library/types.js';
import { isTemplateName } from '../template/names.js';
import { inputRuns } from '../template/model.js';
import { cardText } from './card-text.js';
import { validateTemplate } from '../template/validate.js';
import { GetTemplateArgs, ListTemplatesArgs, MAX_PAGE, TemplateListResult, TemplateResult, ValidateTemplateArgs, ValidationResult } from './schemas.js';
import { tool } from './tool.js';

const READ = { readOnlyHint: true, openWorldHint: false } as const;

/** A list input shows how it launches, its default applied, as the card's header does. */
function inputsOf(d: TemplateDetail) {
  return (d.model?.header.inputs ?? []).map((i) => {
    const runs = inputRuns(i, d.ticket);
    return runs === undefined ? { ...i } : { ...i, runs };
  });
}

export const listTemplates = tool({
  name: 'list_templates',
  title: 'List the templates',
  description:
    'The templates of the desk library, sorted by name: each with its one-line purpose, its state, whether it is valid (only a valid one can be launched), whether it is a ticket template (one run per ticket), and the inputs draft_launch takes for it (type, required, default, description). Pages of at most 200; pass next_cursor back as cursor for the next.',
  args: ListTemplatesArgs,
  result: TemplateListResult,
  hints: READ,
  async run({ cursor, limit }, { library }) {
    if (cursor !== undefined && !isTemplateName(cursor)) {
      throw new DeskError('bad_request', 'cursor is not one this tool answered; leave it out for the first page', { problems: [{ code: 'bad_request', path: '/cursor', message: 'not a cursor list_templates answered' }] });
    }
    const all = await library.listTemplates();
    const after = cursor === undefined ? all : all.filter((t) => t.name > cursor);
    const page = after.slice(0, limit ?? MAX_PAGE);
    const templates = [];
    for (const t of page) {
      const d = await library.getTemplate(t.name);
      templates.push({ name: t.name, purpose: t.purpose, state: t.state, valid: t.valid, ticket: t.ticket, inputs: d ? inputsOf(d) : [] });
    }
    const next = after.length > page.length ? (page.at(-1)?.name ?? null) : null;
    const lines = templates.map((t) => `${t.name}${t.valid ? '' : ' (not valid)'}${t.ticket ? ' [tickets]' : ''}: ${t.purpose ?? '—'}`);
    return { structured: { templates, next_cursor: next }, text: `${lines.join('\n')}${next ? `\n… more: cursor ${next}` : ''}` || 'no templates' };
  },
});

export const getTemplate = tool({
  name: 'get_template',
  title: 'Read a template',
  description:
    'One template: its YAML source, its ETag, its state, whether it is valid and its problems, and its card (the graph: each node with its role, model, profile and what it can touch; the diff against what it varies). Read one before proposing a variation of it.',
  args: GetTemplateArgs,
  result: TemplateResult,
  hints: READ,
  card: true,
  async run({ name }, { library }) {
    const d = await library.getTemplate(name, { card: true });
    if (!d?.card) throw new DeskError('not_found', `no template ${name}; list_templates names them`);
    const structured = { ...templateAnswer(d), etag: d.etag };
    // the card's facts in words; the source is in the structured result, and a text-only host can attach desk://templates/<name>
    return { structured, text: `${d.name} (${d.state}, etag ${d.etag}): ${d.card.purpose ?? '—'}\n${cardText(d.card)}\nsource: desk://templates/${d.name}` };
  },
});

export const validateTemplateTool = tool({
  name: 'validate_template',
  title: 'Validate a template text',
  description:
    'Checks a template file exactly as the desk would judge it on a save, against the library as it is now (its roles, kits and profiles), and answers every problem with its code, severity, message, JSON path, line and column. Keeps nothing. Use it to fix a text before propose_template.',
  args: ValidateTemplateArgs,
  result: ValidationResult,
  hints: READ,
  async run({ source, name }, { library }) {
    const catalogue = await library.catalogue();
    const v = validateTemplate(source, name === undefined ? { catalogue } : { name, catalogue });
    const lines = v.problems.map((p) => `${p.severity} ${p.code}${p.line ? ` (line ${p.line})` : ''} at ${p.path || '/'}: ${p.message}`);
    return { structured: { valid: v.valid, problems: v.problems }, text: v.valid && !lines.length ? 'valid' : `${v.valid ? 'valid' : 'not valid'}\n${lines.join('\n')}` };
  },
});
