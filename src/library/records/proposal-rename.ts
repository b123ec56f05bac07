import { isScalar, parse, parseDocument } from 'yaml';

/**
 * The source with its header's `name:` value replaced by `name`, every other
 * byte kept — for a proposal saved under another name, which the save's
 * validator would otherwise refuse (`name.mismatch`). Null when the header
 * has no plain name value to replace (the text does not parse, or the name is
 * missing): the source is then saved as it is and the validator says why.
 */
export function withHeaderName(source: string, name: string): string | null {
  // a template is within the 128 KiB cap here; aliases are never expanded (no toJS)
  const doc = parseDocument(source, { prettyErrors: false });
  if (doc.errors.length) return null;
  const node = doc.getIn(['template', 'name'], true);
  if (!isScalar(node) || typeof node.value !== 'string' || !node.range) return null;
  const [start, end] = node.range;
  return source.slice(0, start) + scalar(name) + source.slice(end);
}

/** Plain when YAML reads it back as the same string (`my-fix`), else quoted (`"123"`, `"null"`). */
function scalar(name: string): string {
  let back: unknown;
  try {
    back = parse(name);
  } catch {
    back = undefined;
  }
  return back === name ? name : JSON.stringify(name);
}
