import { isTool } from './catalog/tools.js';
import { jsonSyntaxError } from './json-syntax.js';
import { type Problem, pointer, problem } from './problems.js';

/**
 * The role check, format layer (no I/O), so the service and the settings
 * page run the same one (src/web/roles.ts checks kit.json as it is typed).
 * A role is valid when role.md has words and kit.json, if present, is
 * exactly `{"tools": [<known tool id>, …]}`. Problems are collected with the
 * format's codes and JSON Pointers into the role as the API shows it
 * (`/role_md`, `/kit/tools/0`).
 */
export type Kit = { tools: string[] };

export function validateRoleMd(roleMd: string | null): Problem[] {
  if (roleMd === null) return [problem('key.missing', 'the role has no role.md; add one saying who this role is and what it does', '/role_md')];
  if (roleMd.trim() === '') return [problem('key.missing', 'role.md is empty; say who this role is and what it does', '/role_md')];
  return [];
}

/** Checks a kit value's shape; the kit is returned only when it is valid. */
export function validateKit(value: unknown): { kit: Kit | null; problems: Problem[] } {
  const problems: Problem[] = [];
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { kit: null, problems: [problem('type.mismatch', 'kit.json must be an object {"tools": [...]}', '/kit')] };
  }
  const obj = value as Record<string, unknown>;
  for (const k of Object.keys(obj)) {
    if (k !== 'tools') problems.push(problem('key.unknown', `kit.json has an unknown key '${k}'; only "tools" is allowed`, pointer(['kit', k])));
  }
  if (!Object.hasOwn(obj, 'tools')) {
    problems.push(problem('key.missing', 'kit.json has no "tools" list', '/kit'));
  } else if (!Array.isArray(obj.tools)) {
    problems.push(problem('type.mismatch', 'kit.json "tools" must be a list of tool ids', '/kit/tools'));
  } else {
    obj.tools.forEach((t: unknown, i: number) => {
      const path = pointer(['kit', 'tools', i]);
      if (typeof t !== 'string') problems.push(problem('type.mismatch', `kit.json tools[${i}] must be a tool id string`, path));
      else if (!isTool(t)) problems.push(problem('tool.unknown', `kit.json names an unknown tool '${t}'`, path));
    });
  }
  return problems.length ? { kit: null, problems } : { kit: { tools: obj.tools as string[] }, problems };
}

/**
 * kit.json text as found on disk (null: no kit). Text that is not JSON is
 * one problem at the line and column where it stops being JSON, found by
 * our own scan (json-syntax.ts): the engine's message says it differently
 * in Node and in the browser, and both must mark the same place.
 */
export function validateKitText(text: string | null): { kit: Kit | null; problems: Problem[] } {
  if (text === null) return { kit: null, problems: [] };
  const bad = jsonSyntaxError(text);
  if (bad) {
    const where = `line ${bad.line}, column ${bad.column}`;
    return { kit: null, problems: [problem('type.mismatch', `kit.json is not valid JSON at ${where}: ${bad.reason}`, '/kit', { line: bad.line, column: bad.column })] };
  }
  return validateKit(JSON.parse(text));
}
