// Templates the launch tests preview: the shipped ones, and a small one that
// declares an input of every type.
import type { TemplateModel } from '../src/template/model.js';
import { validateTemplate } from '../src/template/validate.js';
import { CATALOGUE, shipped, shippedCatalogue } from './fixtures/templates/helpers.js';

/** A template's typed view; throws when the fixture is not valid, so a drifting fixture fails loudly. */
export function modelOf(source: string, catalogue = CATALOGUE): TemplateModel {
  const v = validateTemplate(source, { catalogue });
  if (!v.valid || !v.template) throw new Error(`fixture not valid: ${JSON.stringify(v.problems)}`);
  return v.template;
}

export function shippedModel(name: string): TemplateModel {
  const t = shipped().find((s) => s.name === name);
  if (!t) throw new Error(`no shipped template ${name}`);
  return modelOf(t.source, shippedCatalogue());
}

/** Every input type, each used in a prompt; `extra` is added to the inputs list. */
export function kinds(extra = ''): string {
  return `template:
  name: kinds
  purpose: one of each input type
  inputs:
    - { name: goal, required: true, type: string, one_of: [fix, explain] }
    - { name: budget, type: number, default: 1.5 }
    - { name: count, type: integer }
    - { name: dry, type: boolean, default: false }
    - { name: notes, type: list }
${extra}  entry: work
  inlet: start
version: 1
nodes:
  work:
    type: model
    role: worker
    profile: read_only
    prompt: "goal={{inputs.goal}} budget={{ inputs.budget }} count={{inputs.count}} dry={{inputs.dry}} notes={{inputs.notes}} run={{run.id}}"
  gate: { type: builtin, builtin: human_gate, prompt: "approve {{inputs.goal}}?" }
  checks: { type: builtin, builtin: checks }
cords:
  - { from: work.done, to: gate.in }
  - { from: gate.approved, to: checks.in }
`;
}
