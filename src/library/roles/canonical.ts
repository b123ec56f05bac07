/**
 * Canonical forms for role files (docs/api.md, Roles). Built-in roles ship
 * in this form and a role save writes it, so saving a role with unchanged
 * words reads `same_as_shipped`.
 */

/** role.md: surrounding whitespace trimmed, line endings LF, one final newline. */
export function canonicalRoleMd(text: string): string {
  return text.replace(/\r\n?/g, '\n').trim() + '\n';
}

/** The service's canonical JSON: keys sorted at every level, two-space indent, one final newline. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value), null, 2) + '\n';
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) out[k] = sortKeys((value as Record<string, unknown>)[k]);
    return out;
  }
  return value;
}
