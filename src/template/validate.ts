// STUB — to be replaced by the one validator (issue 2 §3). The exported names
// and types are the contract everything else builds on.
import type { Catalogue, TemplateModel } from './model.js';
import { hasErrors, type Problem } from './problems.js';
import { readSource } from './read.js';

export interface ValidateOptions {
  /** the name the template must carry (file name, URL name or proposal name); unchecked when absent */
  name?: string;
  /** the roles and templates the library holds */
  catalogue: Catalogue;
}

export interface Validation {
  /** best-effort typed view; null when the document could not be read at all */
  template: TemplateModel | null;
  /** every problem, in source order */
  problems: Problem[];
  /** no problem of severity error */
  valid: boolean;
}

/** The one validator (template-format.md §6): pure, no I/O, never throws. */
export function validateTemplate(source: string, options: ValidateOptions): Validation {
  void options;
  const { problems } = readSource(source);
  return { template: null, problems, valid: !hasErrors(problems) };
}
