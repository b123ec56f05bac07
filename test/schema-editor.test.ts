import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { describe, expect, it } from 'vitest';
import { PROFILES } from '../src/template/catalog/profiles.js';
import { templateJsonSchema } from '../src/template/schema.js';

// The exported JSON Schema in the real yaml-language-server (what the VS Code
// YAML extension and other editors run): unknown keys flagged, enums
// completed, descriptions on hover (docs/format.md, Editor completion).
const require = createRequire(import.meta.url);
const { getLanguageService } = require('yaml-language-server/out/server/src/languageservice/yamlLanguageService') as {
  // biome-ignore lint/suspicious/noExplicitAny: the language service's own types pull in vscode-languageserver
  getLanguageService: (p: any) => any;
};

const SCHEMA_URI = 'desk:template.json';
const ls = getLanguageService({
  schemaRequestService: async (uri: string) => {
    if (uri !== SCHEMA_URI) throw new Error(`unexpected schema ${uri}`);
    return JSON.stringify(templateJsonSchema());
  },
  workspaceContext: { resolveRelativePath: (p: string) => p },
});
ls.configure({ validate: true, completion: true, hover: true, schemas: [{ uri: SCHEMA_URI, fileMatch: ['*.yaml'] }] });

const quickFix = readFileSync(join(import.meta.dirname, '..', 'harness', 'templates', 'quick-fix.yaml'), 'utf8');
// The service caches parsed documents by URI and version: every document gets its own URI.
let docs = 0;
const doc = (text: string) => TextDocument.create(`file:///library/templates/t${++docs}.yaml`, 'yaml', 1, text);
const lineOf = (text: string, needle: string) => text.split('\n').findIndex((l) => l.includes(needle));

describe('the JSON Schema in yaml-language-server', () => {
  it('accepts a shipped template without a diagnostic', async () => {
    expect(await ls.doValidation(doc(quickFix), false)).toEqual([]);
  });

  it('flags an unknown key at its line', async () => {
    const text = quickFix.replace('checks: { type: builtin, builtin: checks }', 'checks: { type: builtin, builtin: checks, colour: red }');
    const diags = (await ls.doValidation(doc(text), false)) as { range: { start: { line: number } } }[];
    expect(diags).toHaveLength(1);
    expect(diags[0]!.range.start.line).toBe(lineOf(text, 'colour: red'));
  });

  it('completes a profile from the catalogue', async () => {
    const text = quickFix.replace('profile: read_only', 'profile: ');
    const line = lineOf(text, 'profile: ');
    const list = await ls.doComplete(doc(text), { line, character: text.split('\n')[line]!.length }, false);
    expect((list.items as { label: string }[]).map((i) => i.label).sort()).toEqual(Object.keys(PROFILES).sort());
  });

  it('shows a description on hover', async () => {
    const hover = await ls.doHover(doc(quickFix), { line: lineOf(quickFix, 'closes_ticket:'), character: 5 });
    const schema = templateJsonSchema() as { properties: { template: { properties: { closes_ticket: { description: string } } } } };
    expect(hover.contents.value).toContain(schema.properties.template.properties.closes_ticket.description);
  });
});
