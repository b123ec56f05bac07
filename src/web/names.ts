import { isReservedTemplateName, isTemplateName, TEMPLATE_NAME } from '../template/names.js';

/**
 * Template names in the page's forms (new template, duplicate): the same
 * rule the service checks, as an HTML `pattern` and as a plain sentence.
 */

/**
 * The name rule as an `<input pattern>`. Browsers compile a pattern with the
 * `v` flag, where a bare `-` at the end of a class is a syntax error (the
 * attribute is then ignored, with a console error on every render), so the
 * dash is escaped; the anchors go because the browser adds its own.
 */
export const NAME_PATTERN = TEMPLATE_NAME.source.replace(/^\^|\$$/g, '').replace(/-\]/g, '\\-]');

/** What is wrong with a name, in words, or null when the service would take it. */
export function nameProblem(name: string): string | null {
  if (name === '') return 'Give it a name.';
  if (name.length > 64) return 'A name is at most 64 characters.';
  if (/[A-Z]/.test(name) && isTemplateName(name.toLowerCase())) return 'Use lowercase letters only.';
  if (!isTemplateName(name)) return 'Use lowercase letters, digits and dashes, starting with a letter or digit (for example release-notes).';
  if (isReservedTemplateName(name)) return `"${name}" is a word the diff uses; pick another name.`;
  return null;
}

/**
 * The source with its header's `name:` changed, for a copy under a new name.
 * Only the value on the `name:` line directly under `template:` changes, so
 * comments and layout stay byte for byte; a source whose header the page
 * cannot find is returned as it is, and the service's `name.mismatch` says why.
 */
export function renameSource(source: string, to: string): string {
  const lines = source.split('\n');
  let indent: string | null = null; // the header's own keys' indentation, once seen
  let inHeader = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!inHeader) {
      inHeader = /^template:[ \t]*(#.*)?\r?$/.test(line);
      continue;
    }
    if (/^[ \t]*(#.*)?\r?$/.test(line)) continue;
    if (/^\S/.test(line)) break;
    indent ??= /^ */.exec(line)![0];
    const m = /^( *)(name:[ \t]*)(?:"[^"]*"|'[^']*'|[^\s#]+)(.*)$/.exec(line);
    if (m && m[1] === indent) {
      lines[i] = `${m[1]}${m[2]}${to}${m[3]}`;
      return lines.join('\n');
    }
  }
  return source;
}
