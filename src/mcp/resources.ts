/**
 * What a host can attach (docs/conductor.md, Resources): the card app
 * (`ui://desk-library/template-card`, the MCP Apps extension) and each
 * template's YAML source as `desk://templates/{name}`.
 */
import { RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Library } from '../library/types.js';
import { isTemplateName } from '../template/names.js';
import { cardAppHtml } from './card-app.js';
import { CARD_URI } from './tool.js';

/** The spec's code for a resource that does not exist (MCP, Resources, Error handling). */
export const RESOURCE_NOT_FOUND = -32002;

export const TEMPLATE_URI_TEMPLATE = 'desk://templates/{name}';
const TEMPLATE_URI = /^desk:\/\/templates\/([^/?#]+)$/;
const YAML = 'application/yaml';

const CARD_RESOURCE = {
  uri: CARD_URI,
  name: 'template-card',
  title: 'Template card',
  description: "The desk's template card: the graph, each node's role, model, profile and what it can touch, the problems and the diff",
  mimeType: RESOURCE_MIME_TYPE,
};

export const RESOURCE_TEMPLATES = [
  {
    uriTemplate: TEMPLATE_URI_TEMPLATE,
    name: 'template',
    title: 'A template file',
    description: "A template's YAML source, as it loads (the operator's copy, else the shipped one)",
    mimeType: YAML,
  },
];

export async function listResources(library: Library) {
  const templates = await library.listTemplates();
  return {
    resources: [
      CARD_RESOURCE,
      ...templates.map((t) => ({ uri: `desk://templates/${t.name}`, name: t.name, ...(t.purpose ? { description: t.purpose } : {}), mimeType: YAML })),
    ],
  };
}

export async function readResource(library: Library, uri: string) {
  if (uri === CARD_URI) {
    // everything it needs is inline: it asks the host for nothing from another origin
    return { contents: [{ uri, mimeType: RESOURCE_MIME_TYPE, text: await cardAppHtml(), _meta: { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } } }] };
  }
  const m = TEMPLATE_URI.exec(uri);
  const name = m ? decodeURIComponent(m[1]!) : '';
  const d = isTemplateName(name) ? await library.getTemplate(name) : null;
  if (!d) throw new McpError(RESOURCE_NOT_FOUND, `no resource ${uri}`, { uri });
  return { contents: [{ uri, mimeType: YAML, text: d.source }] };
}
