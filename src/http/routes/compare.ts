/**
 * Routes that compare templates and write nothing (docs/api.md):
 * the diff, the three-way rebase and the proposal card.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { DeskError } from '../../errors.js';
import { proposalCard } from '../../library/proposals/card.js';
import type { Library, TemplateDetail } from '../../library/types.js';
import { CardSchema } from '../../schema/card.js';
import { TemplateDiffSchema } from '../../schema/diff.js';
import { RebaseAnswerSchema, TemplateName } from '../../schema/templates.js';
import type { CardAgainst } from '../../template/card.js';
import { diffTemplates } from '../../template/diff.js';
import { isTemplateName } from '../../template/names.js';
import { VERSION_PREFIX } from '../../schema/history.js';
import { versionSource } from './history-read.js';
import { notFound } from '../errors.js';
import { errorResponses, TemplateParams } from '../schemas.js';
import { rebaseAnswer } from '../../library/templates/three-way.js';

/**
 * What `?against=` names: `version:<commit>` is a version from history (history-read.ts).
 * `shipped` and `base` are keywords, so a template
 * named `shipped` or `base` cannot be diffed against by name (docs/api.md).
 */
async function resolveAgainst(library: Library, e: TemplateDetail, against: string | undefined): Promise<CardAgainst & { commit?: string }> {
  const kind = against ?? (e.shipped ? 'shipped' : 'base');
  if (kind.startsWith(VERSION_PREFIX)) {
    const { commit, source } = await versionSource(library, e.name, kind.slice(VERSION_PREFIX.length));
    return { name: e.name, kind: 'version', source, commit };
  }
  if (kind === 'shipped') {
    if (e.shipped_source === null) throw new DeskError('not_shipped', `'${e.name}' is not a shipped template`);
    return { name: e.name, kind: 'shipped', source: e.shipped_source };
  }
  if (kind === 'base') {
    const base = e.base;
    if (!base || !isTemplateName(base)) throw new DeskError('no_base', `'${e.name}' declares no base; pass ?against=<template name>`);
    const b = await library.getTemplate(base);
    if (!b) throw new DeskError('not_found', `the base '${base}' of '${e.name}' is not in the library`);
    return { name: b.name, kind: 'base', source: b.source };
  }
  if (!isTemplateName(kind)) throw new DeskError('invalid_name', `against '${kind}' is not shipped, base or a template name`);
  const other = await library.getTemplate(kind);
  if (!other) throw notFound('template', kind);
  return { name: other.name, kind: 'template', source: other.source };
}

export const compareRoutes: FastifyPluginAsyncTypebox<{ library: Library }> = async (app, { library }) => {
  app.get(
    '/templates/:name/diff',
    {
      schema: {
        summary: 'Diff the loaded bytes against the shipped version, the base, or another template',
        tags: ['templates'],
        params: TemplateParams,
        querystring: Type.Object(
          {
            against: Type.Optional(
              Type.String({ description: 'shipped (default for shipped names), base (default otherwise), a template name, or version:<commit>' }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Ref(TemplateDiffSchema), ...errorResponses },
      },
    },
    async (req) => {
      const entry = await library.getTemplate(req.params.name);
      if (!entry) throw notFound('template', req.params.name);
      const a = await resolveAgainst(library, entry, req.query.against);
      // the library's own typed views of its templates, so only a shipped side is validated here
      const other = a.kind === 'shipped' || a.kind === 'version' ? null : await library.getTemplate(a.name);
      const label = a.commit ? `version/${a.commit.slice(0, 7)}/${a.name}.yaml` : `${a.kind}/${a.name}.yaml`;
      const d = diffTemplates(
        { name: a.name, source: a.source, label, ...(other?.source === a.source ? { model: other.model } : {}) },
        { name: entry.name, source: entry.source, label: `${entry.name}.yaml`, model: entry.model },
        await library.catalogue(),
      );
      return { against: { name: a.name, kind: a.kind, ...(a.commit ? { commit: a.commit } : {}) }, ...d };
    },
  );

  app.post(
    '/templates/:name/rebase',
    {
      schema: {
        summary: "Three-way merge of the copy onto today's shipped version; writes nothing",
        tags: ['templates'],
        params: TemplateParams,
        response: {
          200: RebaseAnswerSchema,
          ...errorResponses,
        },
      },
    },
    async (req) => {
      const { name } = req.params;
      const entry = await library.getTemplate(name);
      if (!entry) throw notFound('template', name);
      if (entry.shipped_source === null || entry.state === 'shipped' || entry.state === 'read_only') {
        throw new DeskError('nothing_to_rebase', `'${name}' is not a copy of a shipped template`);
      }
      const base = await library.keptBase(name);
      if (base === null) throw new DeskError('no_kept_base', `no shipped base is kept for the copy of '${name}'`);
      if (base === entry.shipped_source) {
        throw new DeskError('nothing_to_rebase', `the shipped '${name}' has not changed since the copy was saved`);
      }
      return rebaseAnswer(library, name, entry.source, base, entry.shipped_source);
    },
  );

  app.post(
    '/templates/propose',
    {
      schema: {
        summary: 'The card of a proposed template; writes nothing, answers 200 also when invalid',
        tags: ['templates'],
        body: Type.Object(
          { name: TemplateName, purpose: Type.Optional(Type.String()), source: Type.String() },
          { additionalProperties: false },
        ),
        response: { 200: Type.Ref(CardSchema), ...errorResponses },
      },
    },
    // one card for a proposal, kept or not (src/library/proposals/card.ts)
    async (req) => proposalCard(library, req.body),
  );
};
