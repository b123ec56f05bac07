/**
 * docs/api.md is the public contract for HTTP clients: every error code with
 * its status, and every route, must be in it (conventions: "a test that every
 * code is documented", as fastify checks lib/errors.js against its docs).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { buildApp } from '../src/app.js';
import { ERROR_CODES } from '../src/errors.js';
import type { Library } from '../src/library/types.js';

const doc = readFileSync(new URL('../docs/api.md', import.meta.url), 'utf8');

/** `| \`code\` | status | when |` rows of the error table. */
function documentedCodes(): Map<string, number> {
  const rows = new Map<string, number>();
  const table = doc.slice(doc.indexOf('## Error codes'));
  for (const m of table.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \| (.+) \|$/gm)) rows.set(m[1]!, Number(m[2]));
  return rows;
}

describe('docs/api.md', () => {
  test('documents every error code with its status, and no code that does not exist', () => {
    const rows = documentedCodes();
    for (const [code, { status }] of Object.entries(ERROR_CODES)) {
      expect(rows.get(code), code).toBe(status);
    }
    expect([...rows.keys()].sort()).toEqual(Object.keys(ERROR_CODES).sort());
  });

  test('has a section for every route the app serves', async () => {
    const app = await buildApp({ library: { root: null } as unknown as Library, web: false });
    const routes: string[] = [];
    await app.ready();
    const doc3 = app.swagger() as { paths: Record<string, Record<string, unknown>> };
    for (const [path, ops] of Object.entries(doc3.paths)) {
      for (const method of Object.keys(ops)) routes.push(`${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`);
    }
    routes.push('GET /api/desk/openapi.json');
    expect(routes.length).toBeGreaterThanOrEqual(15);
    for (const r of routes) expect(doc, r).toContain(`### \`${r}`);
    await app.close();
  });

  // Generated clients copy the summary into their docs: it must say what the section says.
  test("each operation's OpenAPI summary is the first sentence of its section", async () => {
    const app = await buildApp({ library: { root: null } as unknown as Library, web: false });
    await app.ready();
    const doc3 = app.swagger() as { paths: Record<string, Record<string, { summary?: string }>> };
    await app.close();
    const checked: string[] = [];
    for (const [path, ops] of Object.entries(doc3.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const route = `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`;
        expect({ route, summary: plain(op.summary ?? '') }).toEqual({ route, summary: plain(firstSentence(route)) });
        checked.push(route);
      }
    }
    expect(checked.length).toBeGreaterThanOrEqual(40);
  });
});

/** The first sentence of the section `### \`ROUTE…\``: its first paragraph up to the first full stop that ends a sentence. */
function firstSentence(route: string): string {
  const at = doc.indexOf(`### \`${route}`);
  if (at === -1) return '';
  const body = doc.slice(doc.indexOf('\n', at) + 1).replace(/^\n+/, '');
  const paragraph = body.slice(0, body.indexOf('\n\n'));
  return /^([\s\S]+?\.)(?=\s|$)/.exec(paragraph)?.[1] ?? paragraph;
}

/** Text without Markdown's code and bold marks, one space between words, no closing full stop. */
function plain(s: string): string {
  return s.replace(/`|\*\*/g, '').replace(/\s+/g, ' ').trim().replace(/\.$/, '');
}
