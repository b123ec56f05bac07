/**
 * Name patterns (docs/format.md). Every place that checks a name —
 * the validator, the library before it builds a path, the HTTP params — uses
 * these, so a name valid in one place is valid in all.
 */

/** template names: lowercase letters, digits and dashes, starting with a letter or digit, at most 64 */
export const TEMPLATE_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;
/** role names (identifiers): also the role folder names under roles/ */
export const ROLE_NAME = /^[a-z][a-z0-9_]{0,63}$/;
/** node ids */
export const NODE_ID = /^[a-z][a-z0-9_]{0,63}$/;
/** input names */
export const INPUT_NAME = /^[a-z][a-z0-9_]*$/;

/**
 * Template names the diff route reads as keywords (`?against=shipped`,
 * `?against=base`), so a template of that name could never be diffed
 * against by name. The validator refuses them (`name.reserved`).
 */
export const RESERVED_TEMPLATE_NAMES: readonly string[] = ['shipped', 'base'];

export function isReservedTemplateName(s: string): boolean {
  return RESERVED_TEMPLATE_NAMES.includes(s);
}

export function isTemplateName(s: string): boolean {
  return TEMPLATE_NAME.test(s);
}

export function isRoleName(s: string): boolean {
  return ROLE_NAME.test(s);
}
