import { DeskError } from '../../errors.js';
import { isTemplateName } from '../../template/names.js';
import type { LibraryContext, WriteGuard } from '../context.js';
import type { FsContext } from '../disk/fs-safe.js';
import { look } from '../look.js';
import { ifMatchPasses, sha256Hex } from '../disk/markers.js';
import { recoverTemplate } from '../disk/recovery.js';
import { getTemplate, listTemplates, readFacts } from './read.js';
import { readKeptBase, writeTemplateAcknowledge, writeTemplateDelete, writeTemplateReset, writeTemplateSave } from './files.js';
import type { Library, TemplateDetail, TemplateFacts, WriteOptions } from '../types.js';

/**
 * The template half of the Library contract. Every write: name checked
 * before any path is built, refused when read-only or rootless, then — inside
 * the name's queue slot — earlier intents resolved, the preconditions
 * compared with what loads now, files written, and one log line.
 */

/** Names are checked before any path is built from them. */
export function checkTemplateName(name: string): void {
  if (typeof name !== 'string' || !isTemplateName(name)) throw new DeskError('invalid_name', 'a template name is lowercase letters, digits and dashes, at most 64');
}

/**
 * If-None-Match (RFC 9110 §13.1.2): `*` fails when the name exists at all,
 * a list of tags when the current ETag is among them (weak comparison).
 * Nothing there: it passes.
 */
export function ifNoneMatchPasses(ifNoneMatch: string | undefined, currentEtag: string | null): boolean {
  if (ifNoneMatch === undefined || currentEtag === null) return true;
  const wanted = ifNoneMatch.trim();
  if (wanted === '*') return false;
  return !wanted.split(',').some((t) => t.trim().replace(/^W\//, '') === currentEtag);
}

type TemplateOps = Pick<Library, 'catalogue' | 'listTemplates' | 'getTemplate' | 'saveTemplate' | 'resetTemplate' | 'acknowledgeTemplate' | 'deleteTemplate' | 'keptBase'>;

/**
 * Runs a write's file steps. If one fails, the name's intent is resolved
 * straight away and the answer follows what is now on disk: a write that
 * passed its commit point succeeded (the rest is finished here or at the next
 * start), one that did not changed nothing and reports the failure.
 */
export async function settle(ctx: LibraryContext, name: string, steps: () => Promise<unknown>, recover: () => Promise<unknown>, landed: () => Promise<boolean> | boolean): Promise<void> {
  try {
    await steps();
  } catch (e) {
    await recover().catch(() => {});
    if (await Promise.resolve().then(landed).catch(() => false)) {
      ctx.logger.warn({ name, code: (e as { code?: string }).code }, 'write landed; its last steps finish at the next start');
      return;
    }
    throw e;
  }
}

export function templateOps(ctx: LibraryContext, guard: WriteGuard): TemplateOps {
  const facts = (name: string): TemplateFacts | null => readFacts(ctx, name)?.facts ?? null;

  /** Common front of every write: refusals that need no file, then the queue slot with what loads now. */
  async function write<T extends TemplateDetail | undefined>(
    name: string,
    opts: WriteOptions | undefined,
    op: string,
    body: (fs: FsContext, before: TemplateFacts | null) => Promise<T>,
    pre?: () => void,
  ): Promise<T> {
    checkTemplateName(name);
    if (ctx.readOnly.has(name)) throw new DeskError('read_only', `${name} is registered read-only`);
    const fs = guard.writable();
    pre?.();
    return guard.queue.run(`template:${name}`, async () => {
      await recoverTemplate(fs, name);
      const before = facts(name);
      if (!ifMatchPasses(opts?.ifMatch, before?.etag ?? null)) throw new DeskError('precondition_failed', `${name} changed since it was read`);
      if (!ifNoneMatchPasses(opts?.ifNoneMatch, before?.etag ?? null)) throw new DeskError('precondition_failed', `${name} already exists`);
      const out = await body(fs, before);
      const after = out ? out.state : (facts(name)?.state ?? null);
      ctx.logger.info({ name, kind: 'template', op, before: before?.state ?? null, after, who: opts?.who ?? null }, `template ${op}`);
      return out;
    });
  }

  const answer = (name: string, opts: WriteOptions | undefined): TemplateDetail => {
    const d = getTemplate(ctx, name, opts?.card);
    if (!d) throw new DeskError('internal', `template ${name} is missing after a write`);
    return d;
  };

  return {
    async catalogue() {
      return look(ctx).catalogue;
    },
    listTemplates: () => listTemplates(ctx),
    async getTemplate(name, opts) {
      checkTemplateName(name);
      return getTemplate(ctx, name, opts?.card);
    },
    async saveTemplate(name, source, opts) {
      const bytes = Buffer.from(source, 'utf8');
      const hash = sha256Hex(bytes);
      // validation comes first: an invalid body is 422 whatever the preconditions say. The text
      // as it will read back from disk, memoised: the answer after the save takes it from the memo
      const validateFirst = () => {
        const v = ctx.memo.whole(name, bytes.toString('utf8'), hash, look(ctx)).validation;
        if (!v.valid) throw new DeskError('invalid_template', `${name} is not valid; nothing was saved`, { problems: v.problems });
      };
      return write(name, opts, 'saved', async (fs) => {
        const shipped = ctx.shipped.templates.get(name) ?? null;
        const landed = () => {
          const now = readFacts(ctx, name);
          return now !== null && now.facts.state !== 'shipped' && now.facts.hash === hash && (!shipped || now.marker?.copy === hash);
        };
        await settle(ctx, name, () => writeTemplateSave(fs, name, source, shipped), () => recoverTemplate(fs, name), landed);
        return answer(name, opts);
      }, validateFirst);
    },
    async resetTemplate(name, opts) {
      const pre = () => {
        if (!ctx.shipped.templates.has(name)) throw new DeskError('not_shipped', `${name} is not a shipped template`);
      };
      return write(name, opts, 'reset', async (fs, before) => {
        if (before?.state !== 'shipped') {
          await settle(ctx, name, () => writeTemplateReset(fs, name), () => recoverTemplate(fs, name), () => facts(name)?.state === 'shipped');
        }
        return answer(name, opts);
      }, pre);
    },
    async acknowledgeTemplate(name, opts) {
      return write(name, opts, 'acknowledged', async (fs, before) => {
        if (!before) throw new DeskError('not_found', `no template ${name}`);
        const shipped = ctx.shipped.templates.get(name);
        const marker = readFacts(ctx, name)?.marker ?? null;
        if (before.state !== 'shipped_changed_since' || !shipped || !marker) {
          throw new DeskError('state_conflict', `${name} is ${before.state}; only a copy whose shipped version changed since can be acknowledged`);
        }
        await writeTemplateAcknowledge(fs, name, shipped, marker);
        return answer(name, opts);
      });
    },
    async deleteTemplate(name, opts) {
      const pre = () => {
        if (ctx.shipped.templates.has(name)) throw new DeskError('not_custom', `${name} is shipped; reset it instead`);
      };
      await write(name, opts, 'deleted', async (fs, before) => {
        if (!before) throw new DeskError('not_found', `no template ${name}`);
        await settle(ctx, name, () => writeTemplateDelete(fs, name), () => Promise.resolve(), () => facts(name) === null);
        return undefined;
      }, pre);
    },
    async keptBase(name) {
      checkTemplateName(name);
      if (!ctx.fs || !ctx.shipped.templates.has(name)) return null;
      const r = readFacts(ctx, name);
      if (!r || r.facts.state === 'shipped' || !r.marker) return null;
      return readKeptBase(ctx.fs, r.marker.shipped);
    },
  };
}
