import { buildCard, type Card, type CardAgainst } from '../../template/card.js';
import { isTemplateName } from '../../template/names.js';
import { LIMITS } from '../../template/read.js';
import { type Validator, validateTemplate } from '../../template/validate.js';
import type { Library } from '../types.js';

/** What a proposed template is: the name it would be saved under, why, and its text. */
export interface ProposedText {
  name: string;
  purpose?: string;
  source: string;
}

/**
 * The card of a proposed template against the library as it is now
 * (docs/api.md, propose and Proposals): one function for `POST
 * /templates/propose` and the kept proposals, so both say the same thing.
 * Writes nothing; an invalid source gets a card that says so.
 */
export async function proposalCard(library: Library, { name, purpose, source }: ProposedText): Promise<Card> {
  const args = purpose === undefined ? { name } : { name, purpose };
  const catalogue = await library.catalogue();
  // The save's size cap, before any work: over it the card is the save's refusal (valid: false,
  // limit.size) with no diff, so a 1 MiB body never reaches the validator or the line diff.
  if (source.length > LIMITS.sizeBytes || Buffer.byteLength(source, 'utf8') > LIMITS.sizeBytes) {
    return buildCard(source, args, catalogue, null);
  }
  const own = validateTemplate(source, { name, catalogue });
  const base = own.template?.header.base;
  // The card diffs against the header's base, else the library template of the same name.
  const varied = base && isTemplateName(base) ? await library.getTemplate(base) : null;
  const same = varied ? null : await library.getTemplate(name);
  // The validations the card asks for: the proposal's is `own` (without the name it only lacks
  // `name.mismatch`), and the template diffed against is the library's, whose kept typed view
  // is all the diff reads. At the size cap a validation costs tens of ms; the card asked four.
  const kept = varied ?? same;
  const validate: Validator = (src, o) => {
    if (kept && src === kept.source && src !== source) return { template: kept.model, problems: kept.problems, valid: kept.valid };
    if (src !== source || o.catalogue !== catalogue) return validateTemplate(src, o);
    if (o.name === name) return own;
    const problems = own.problems.filter((p) => p.code !== 'name.mismatch');
    return { template: own.template, problems, valid: problems.every((p) => p.severity !== 'error') };
  };
  const against: CardAgainst | null = varied
    ? { name: varied.name, kind: 'base', source: varied.source }
    : same
      ? { name: same.name, kind: 'template', source: same.source }
      : null;
  return buildCard(source, args, catalogue, against, validate);
}
