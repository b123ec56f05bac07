/**
 * The card (docs/api.md): what the settings page and the desk show
 * for a template or a proposal — its header, its nodes with what each can
 * touch, its cords, its problems, and a diff against the template it varies.
 * Format layer: pure, no I/O; the caller picks what to diff against.
 */
import type { Card, CardHeader, CardNode } from './card-types.js';
import { diffTemplates } from './diff.js';
import type { AgainstKind, TemplateDiff } from './diff-types.js';
import { type Catalogue, type HeaderModel, inputRuns, type NodeModel, nodeIdentity } from './model.js';
import { problem } from './problems.js';
import { type Validator, validateTemplate } from './validate.js';

export type { Card } from './card-types.js';

export interface CardArguments {
  /** the name the template must carry */
  name: string;
  /** the purpose the proposer gave, compared with the header's */
  purpose?: string;
}

export interface CardAgainst {
  name: string;
  kind: AgainstKind;
  source: string;
}

/** Builds the card of `source`. Never throws; an unreadable template gives an empty card with its problems. */
export function buildCard(
  source: string,
  args: CardArguments,
  catalogue: Catalogue,
  against: CardAgainst | null = null,
  /** the validator; a caller that keeps validations (src/library/templates/read.ts) passes a memoised one. Default: validateTemplate */
  validate: Validator = validateTemplate,
): Card {
  const validation = validate(source, { name: args.name, catalogue });
  const { template } = validation;
  let { problems, valid } = validation;
  // the purpose the proposer gave is one line, as the header's is and as a kept proposal's must be
  if (args.purpose !== undefined && /[\n\r]/.test(args.purpose.trim())) {
    problems = [...problems, problem('purpose.multiline', "the proposal's purpose has a line break; make it one line", '/purpose')];
    valid = false;
  }
  const header = cardHeader(template?.header, template?.ticket ?? false);
  const purposeArg = args.purpose;
  let diff: TemplateDiff | null = null;
  if (against) {
    const d = diffTemplates(
      { name: against.name, source: against.source, label: `${against.kind}/${against.name}.yaml` },
      // the model just validated: a name changes only the problems a validation reports, never its model
      { name: args.name, source, label: `${args.name}.yaml`, model: template },
      catalogue,
      validate,
    );
    diff = { against: { name: against.name, kind: against.kind }, ...d };
  }
  return {
    name: args.name,
    purpose: header.purpose ?? purposeArg ?? null,
    valid,
    problems,
    ticket: template?.ticket ?? false,
    header,
    nodes: (template?.nodes ?? []).map(cardNode),
    loops: (template?.loops ?? []).map((l) => ({ cycle: [...l.cycle], nodes: [...l.nodes], bounds: l.bounds.map((b) => ({ ...b })), bounded: l.bounded })),
    cords: (template?.cords ?? []).map((c) => ({ from: c.from, to: c.to, line: c.line ?? null })),
    diff,
    // only a header that was read can differ: an unreadable source has no name to compare (its problem says why),
    // and the page said "The header's name is not X" of a text whose `name:` line read X
    name_differs: template != null && header.name !== args.name,
    purpose_differs: purposeArg !== undefined && purposeArg.trim() !== (header.purpose ?? '').trim(),
  };
}

function cardHeader(h: HeaderModel | undefined, ticket: boolean): CardHeader {
  return {
    name: h?.name ?? null,
    purpose: h?.purpose ?? null,
    base: h?.base ?? null,
    // a list input shows how it launches, its default applied (a launch reads the card)
    inputs: (h?.inputs ?? []).map((i) => {
      const runs = inputRuns(i, ticket);
      return runs === undefined ? { ...i } : { ...i, runs };
    }),
    roles: (h?.roles ?? []).map((r) => ({ role: r.role, node: r.node })),
    writes: h?.writes ?? false,
    closes_ticket: h?.closes_ticket ?? false,
    entry: h?.entry ?? null,
    inlet: h?.inlet ?? null,
    terminal: h?.terminal ?? null,
  };
}

function cardNode(n: NodeModel): CardNode {
  return {
    ...nodeIdentity(n),
    touches: [...n.touches],
    max_visits: n.max_visits ?? null,
    inlets: [...n.inlets],
    outlets: [...n.outlets],
    line: n.line ?? null,
  };
}

