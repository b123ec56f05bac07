/**
 * Tools a kit can list (docs/format.md, Tool nodes). The page is built apart from
 * the service, so the list is repeated here; test/web/units.test.ts checks it
 * against src/template/catalog/tools.ts. Tools in a kit that are not listed
 * still show, so nothing is dropped silently.
 */
export const KNOWN_TOOLS = [
  'web.fetch',
  'web.search',
  'shell.run',
  'workspace.read',
  'workspace.write',
  'tickets.read',
  'tickets.update',
  'documents.read',
  'documents.write',
] as const;
