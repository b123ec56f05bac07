import { DeskError } from '../errors.js';
import { isTemplateName } from '../template/names.js';
import type { LibraryContext, WriteGuard } from './context.js';
import type { FsContext } from './fs-safe.js';
import { etagOf, ifMatchPasses, sha256Hex } from './markers.js';
import { decideState } from './state.js';
import { templateIntentFile } from './intents.js';
import { readTemplateCopy } from './operator.js';
import { recoverTemplate } from './recovery.js';
import { listTemplateEntries, snapshotCatalogue, snapshotCatalogueSync, templateEntrySync } from './template-entries.js';
import { fullValidation, type ValidationMemo, validated } from './validation-memo.js';
import type { Validation } from '../template/validate.js';
import { readKeptBase, writeTemplateAcknowledge, writeTemplateDelete, writeTemplateReset, writeTemplateSave } from './template-writes.js';
import type { Library, TemplateEntry, WriteOptions } from './types.js';

/**
 * The template half of the Library contract. Every write: name checked
 * before any path is built, refused when read-only or rootless, then — inside
 * the name's queue slot — earlier intents resolved, If-Match compared with
 * the entry as it is now, files written, and one log line.
 */

/** Names are checked before any path is built from them. */
export function checkTemplateName(name: string): void {
  if (typeof name !== 'string' || !isTemplateName(name)) throw new DeskError('invalid_name', 'a template name is lowercase letters, digits and dashes, at most 64');
}

type TemplateOps = Pick<Library, 'catalogue' | 'listTemplates' | 'getTemplate' | 'view' | 'saveTemplate' | 'resetTemplate' | 'acknowledgeTemplate' | 'deleteTemplate' | 'keptBase'>;

/**
 * Runs a write's file steps. If one fails, the name's intent is resolved
 * straight away and the answer follows what is now on disk: a write that
 * passed its commit point succeeded (the rest is finished here or at the next
 * start), one that did not changed nothing and reports the failure.
 */
export async function settle(ctx: LibraryContext, name: string, steps: () => Promise<unknown>, recover: () => Promise<void>, landed: () => Promise<boolean>): Promise<void> {
  try {
    await steps();
  } catch (e) {
    await recover().catch(() => {});
    if (await landed().catch(() => false)) {
      ctx.logger.warn({ name, code: (e as { code?: string }).code }, 'write landed; its last steps finish at the next start');
      return;
    }
    throw e;
  }
}

/**
 * The entry a valid save will answer once it lands (what template-entries.ts
 * builds from the files then): its copy's bytes, the marker it writes — so
 * `same_as_shipped` or `edited`, or `custom` — and its validation.
 */
function savedEntry(ctx: LibraryContext, name: string, source: string, hash: string, m: ValidationMemo, v: Validation): TemplateEntry {
  const shipped = ctx.shipped.templates.get(name) ?? null;
  const st = shipped ? decideState(shipped.hash, hash, { shipped: shipped.hash, copy: hash }) : { state: 'custom' as const, edited_outside: false };
  return {
    name,
    state: st.state,
    shipped: shipped !== null,
    read_only: false,
    edited_outside: st.edited_outside,
    source,
    shipped_source: shipped?.text ?? null,
    etag: etagOf(hash),
    valid: m.outline.valid,
    outline: m.outline,
    problems: v.problems,
    model: v.template,
  };
}

function isEntry(x: unknown): x is TemplateEntry {
  return typeof x === 'object' && x !== null && 'etag' in x && 'state' in x;
}

export function templateOps(ctx: LibraryContext, guard: WriteGuard): TemplateOps {
  /** `whole`: with source, problems and model (an answer); else the listed entry (state and ETag: a write's `before`) */
  const get = async (name: string, whole = true) => {
    const cat = snapshotCatalogueSync(ctx);
    // the templates listing was proven by the snapshot a moment ago
    return templateEntrySync(ctx, name, cat, ctx.lastCatalogue!.templates, whole);
  };

  /** Common front of every write: refusals that need no file, then the queue slot with the entry as it is now. */
  async function write<T>(
    name: string,
    opts: WriteOptions | undefined,
    op: string,
    body: (fs: FsContext, before: TemplateEntry | null) => Promise<T>,
    pre?: () => void | Promise<void>,
  ): Promise<T> {
    checkTemplateName(name);
    if (ctx.readOnly.has(name)) throw new DeskError('read_only', `${name} is registered read-only`);
    const fs = guard.writable();
    await pre?.();
    return guard.queue.run(`template:${name}`, async () => {
      await recoverTemplate(fs, name);
      const before = await get(name, false);
      if (!ifMatchPasses(opts?.ifMatch, before?.etag ?? null)) throw new DeskError('precondition_failed', `${name} changed since it was read`);
      const out = await body(fs, before);
      // a body that answers the entry as it now is spares a second look
      const after = isEntry(out) ? out : await get(name, false);
      ctx.logger.info({ name, kind: 'template', op, before: before?.state ?? null, after: after?.state ?? null, who: opts?.who ?? null }, `template ${op}`);
      return out;
    });
  }

  const mustGet = async (name: string) => (await get(name)) ?? Promise.reject(new DeskError('not_found', `no template ${name}`));

  return {
    async catalogue() {
      return (await snapshotCatalogue(ctx)).catalogue;
    },
    listTemplates: () => listTemplateEntries(ctx),
    async view() {
      const cat = snapshotCatalogueSync(ctx);
      const listing = ctx.lastCatalogue!.templates;
      return {
        catalogue: cat.catalogue,
        async getTemplate(name: string) {
          checkTemplateName(name);
          return templateEntrySync(ctx, name, cat, listing, true);
        },
      };
    },
    async getTemplate(name) {
      checkTemplateName(name);
      return get(name);
    },
    async saveTemplate(name, source, opts) {
      // validation comes first (docs/api.md, PUT): an invalid body is 422 whatever If-Match says
      let prospect: (() => void) | null = null;
      const validateFirst = async () => {
        // validated as it will read back from disk, and memoised: the entry answered after the save reuses it
        const bytes = Buffer.from(source, 'utf8');
        const src = { text: bytes.toString('utf8') };
        const cat = snapshotCatalogueSync(ctx);
        const m = validated(ctx, name, src, sha256Hex(bytes), cat);
        const v = fullValidation(ctx, m, name, src, cat);
        if (!m.outline.valid) throw new DeskError('invalid_template', `${name} is not valid; nothing was saved`, { problems: v.problems });
        const whileWriting = opts?.whileWriting;
        if (whileWriting) prospect = () => whileWriting(savedEntry(ctx, name, src.text, sha256Hex(bytes), m, v), cat.catalogue);
      };
      return write(name, opts, 'saved', async (fs) => {
        const shipped = ctx.shipped.templates.get(name) ?? null;
        const hash = sha256Hex(source);
        const steps = async () => {
          const writing = writeTemplateSave(fs, name, source, shipped);
          // after this turn's microtasks the first file steps are with the disk: the caller's work runs meanwhile
          const run = prospect;
          if (run) {
            setImmediate(() => {
              try {
                run();
              } catch {
                // the caller's own work: the save does not depend on it
              }
            });
          }
          await writing;
          // the library knows what its write changed: the kept listing is updated, not listed again (dir-cache.ts)
          const added = shipped ? [`${name}.yaml`, `.${name}.shipped`, '.shipped-base'] : [`${name}.yaml`];
          ctx.dirs.ownWrite(fs, 'templates', added, shipped ? [templateIntentFile(name)] : []);
        };
        try {
          await settle(ctx, name, steps, () => recoverTemplate(fs, name), async () => {
            const view = await readTemplateCopy(ctx, name);
            return view.copy.kind === 'file' && view.copy.hash === hash && (!shipped || view.marker?.copy === hash);
          });
          return await mustGet(name);
        } finally {
          // the save's own looks are done: later requests prove the folder again (dir-cache.ts)
          ctx.dirs.endOwn('templates');
        }
      }, validateFirst);
    },
    async resetTemplate(name, opts) {
      const pre = () => {
        if (!ctx.shipped.templates.has(name)) throw new DeskError('not_shipped', `${name} is not a shipped template`);
      };
      return write(name, opts, 'reset', async (fs, before) => {
        if (before?.state !== 'shipped') {
          await settle(ctx, name, () => writeTemplateReset(fs, name), () => recoverTemplate(fs, name), async () => (await readTemplateCopy(ctx, name)).copy.kind === 'missing');
        }
        return mustGet(name);
      }, pre);
    },
    async acknowledgeTemplate(name, opts) {
      return write(name, opts, 'acknowledged', async (fs, before) => {
        if (!before) throw new DeskError('not_found', `no template ${name}`);
        const shipped = ctx.shipped.templates.get(name);
        const { marker } = await readTemplateCopy(ctx, name);
        if (before.state !== 'shipped_changed_since' || !shipped || !marker) {
          throw new DeskError('state_conflict', `${name} is ${before.state}; only a copy whose shipped version changed since can be acknowledged`);
        }
        await writeTemplateAcknowledge(fs, name, shipped, marker);
        return mustGet(name);
      });
    },
    async deleteTemplate(name, opts) {
      const pre = () => {
        if (ctx.shipped.templates.has(name)) throw new DeskError('not_custom', `${name} is shipped; reset it instead`);
      };
      await write(name, opts, 'deleted', async (fs, before) => {
        if (!before) throw new DeskError('not_found', `no template ${name}`);
        await settle(ctx, name, () => writeTemplateDelete(fs, name), () => Promise.resolve(), async () => (await readTemplateCopy(ctx, name)).copy.kind === 'missing');
      }, pre);
    },
    async keptBase(name) {
      checkTemplateName(name);
      if (!ctx.fs || !ctx.shipped.templates.has(name)) return null;
      const { copy, marker } = await readTemplateCopy(ctx, name);
      if (copy.kind === 'missing' || !marker) return null;
      return readKeptBase(ctx.fs, marker.shipped);
    },
  };
}
