/**
 * A template compared with another text, writing nothing (docs/api.md): the
 * diff against what `?against=` names, and the rebase of an operator copy
 * onto today's shipped version (the merge itself is templates/three-way.ts).
 * Above both templates/ and history/, as it reads from each.
 */
import { DeskError } from '../errors.js';
import type { TemplateDiff } from '../schema/diff.js';
import { VERSION_PREFIX } from '../schema/history.js';
import type { RebaseAnswer } from '../schema/templates.js';
import type { CardAgainst } from '../template/card.js';
import { diffTemplates } from '../template/diff.js';
import { isTemplateName } from '../template/names.js';
import type { LibraryReads, TemplateDetail } from './entries.js';
import { shortCommit, templateAt, type VersionsLibrary } from './history/versions.js';
import { rebaseAnswer } from './templates/three-way.js';

/** What a comparison reads of the library (types.ts, Library): its reads, a kept base, a version from history. */
export type Compared = VersionsLibrary & Pick<LibraryReads, 'catalogue'> & { keptBase(name: string): Promise<string | null> };

/**
 * What `?against=` names: `version:<commit>` is a version from history
 * (history/versions.ts). `shipped` and `base` are keywords, so a template
 * named `shipped` or `base` cannot be diffed against by name (docs/api.md).
 * Absent: the shipped version for a shipped name, else the base.
 */
async function resolveAgainst(library: Compared, e: TemplateDetail, against: string | undefined): Promise<CardAgainst & { commit?: string }> {
  const kind = against ?? (e.shipped ? 'shipped' : 'base');
  if (kind.startsWith(VERSION_PREFIX)) {
    const commit = kind.slice(VERSION_PREFIX.length);
    return { name: e.name, kind: 'version', source: await templateAt(library, e.name, commit), commit };
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
  // the words every missing name is answered with (src/http/errors.ts notFound)
  if (!other) throw new DeskError('not_found', `no template named '${kind}'`);
  return { name: other.name, kind: 'template', source: other.source };
}

/** The template as it loads (after) diffed against what `against` names (before); null when no template of that name loads. */
export async function diffTemplate(library: Compared, name: string, against: string | undefined): Promise<TemplateDiff | null> {
  const entry = await library.getTemplate(name);
  if (!entry) return null;
  const a = await resolveAgainst(library, entry, against);
  // the library's own typed views of its templates, so only a shipped side is validated here
  const other = a.kind === 'shipped' || a.kind === 'version' ? null : await library.getTemplate(a.name);
  const label = a.commit ? `version/${shortCommit(a.commit)}/${a.name}.yaml` : `${a.kind}/${a.name}.yaml`;
  const d = diffTemplates(
    { name: a.name, source: a.source, label, ...(other?.source === a.source ? { model: other.model } : {}) },
    { name: entry.name, source: entry.source, label: `${entry.name}.yaml`, model: entry.model },
    await library.catalogue(),
  );
  return { against: { name: a.name, kind: a.kind, ...(a.commit ? { commit: a.commit } : {}) }, ...d };
}

/**
 * The operator copy merged onto today's shipped version over the shipped
 * bytes it was saved against; null when no template of that name loads.
 * Refused when there is no copy of a shipped template, no kept base, or the
 * shipped version has not changed since the copy was saved.
 */
export async function rebaseOntoShipped(library: Compared, name: string): Promise<RebaseAnswer | null> {
  const entry = await library.getTemplate(name);
  if (!entry) return null;
  if (entry.shipped_source === null || entry.state === 'shipped' || entry.state === 'read_only') {
    throw new DeskError('nothing_to_rebase', `'${name}' is not a copy of a shipped template`);
  }
  const base = await library.keptBase(name);
  if (base === null) throw new DeskError('no_kept_base', `no shipped base is kept for the copy of '${name}'`);
  if (base === entry.shipped_source) {
    throw new DeskError('nothing_to_rebase', `the shipped '${name}' has not changed since the copy was saved`);
  }
  return rebaseAnswer(library, name, entry.source, base, entry.shipped_source);
}
