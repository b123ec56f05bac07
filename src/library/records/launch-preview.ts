import { previewLaunch } from '../../template/launch.js';
import type { TemplateModel } from '../../template/model.js';
import type { Problem } from '../../template/problems.js';
import { validateTemplate } from '../../template/validate.js';
import type { DraftPreview } from '../records-contract.js';
import type { Library } from '../types.js';
import type { LaunchRecord } from './launch-record.js';

export type { DraftPreview } from '../records-contract.js';

/** A version's validation, as the preview needs it. */
export interface VersionCheck {
  valid: boolean;
  model: TemplateModel | null;
  problems: Problem[];
}

/** The version a template loads at now, or null when none loads under that name. */
export interface Current extends VersionCheck {
  etag: string;
  source: string;
}

export async function currentVersion(library: Library, name: string): Promise<Current | null> {
  const d = await library.getTemplate(name);
  return d && { etag: d.etag, source: d.source, valid: d.valid, model: d.model, problems: d.problems };
}

/**
 * The preview of a draft on its own version: the library's validation when
 * that is the version loading now (kept, costs nothing), else the draft's
 * source validated again against the library's names, kept for the few
 * versions asked last (an approved draft of a template edited since).
 */
export function draftPreviews(library: Library) {
  const older = new Map<string, VersionCheck>();
  const KEEP = 16;

  async function check(rec: Pick<LaunchRecord, 'template' | 'etag' | 'source'>, current: Current | null): Promise<VersionCheck> {
    if (current?.etag === rec.etag) return current;
    const key = `${rec.template}\0${rec.etag}`;
    let v = older.get(key);
    if (!v) {
      const { template, problems, valid } = validateTemplate(rec.source, { name: rec.template, catalogue: await library.catalogue() });
      v = { valid, model: template, problems };
      older.set(key, v);
      if (older.size > KEEP) older.delete(older.keys().next().value!);
    }
    return v;
  }

  return {
    check,
    /** the preview of `rec` on `v`: a version that is not valid previews nothing and says why */
    preview(v: VersionCheck, inputs: Readonly<Record<string, unknown>>): DraftPreview {
      if (!v.valid || !v.model) return { ok: false, problems: v.problems, runs: [] };
      return previewLaunch(v.model, inputs);
    },
  };
}
