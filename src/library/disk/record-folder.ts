import { type Dirent, readdirSync } from 'node:fs';
import { removeFileDurable, TEMP_PREFIX } from './atomic-write.js';
import { dirSync, fault, type FsContext, oddType, overCap, type ReadOutcome, readNoFollow, reportOdd, safeDirSync } from './fs-safe.js';

/**
 * A folder of JSON records, one `<id>.json` each (`proposals/`,
 * `launches/`), read with the safe primitives (fs-safe.ts): never a link
 * followed, a FIFO waited on or a file over the cap read. What is not a
 * record the service wrote is reported (once, reportOdd) and skipped.
 */
export interface RecordFolder<R> {
  /** the folder under the root (layout.ts) */
  folder: string;
  /** what a record is called in a report: `proposal`, `launch` */
  what: string;
  /** `<id>.json`, capturing the id */
  file: RegExp;
  cap: number;
  /** the record, or null when the text is not one this code wrote */
  parse(text: string, id: string): R | null;
}

/** Why a read found no record, or null when there was nothing to find. */
function oddReason(r: ReadOutcome, parsed: boolean, what: string): string | null {
  if (r.kind === 'missing') return null;
  if (r.kind === 'file') return parsed ? null : `not a ${what} record`;
  return r.kind === 'too_large' ? overCap(r.size) : r.reason;
}

/**
 * What a read of one record found: the record; `gone` — no such file, or
 * something there that is not a record the service wrote (a torn or
 * hand-made file, a link, a FIFO, a folder, one over the cap: reported);
 * or `failed` — the file may well be a record, but reading it failed for a
 * passing reason (EMFILE, ENFILE, EIO, EACCES…: `code`), so it is read again later.
 */
export type RecordRead<R> = { kind: 'record'; rec: R } | { kind: 'gone' } | { kind: 'failed'; code: string };

/** An errno code: a read that failed rather than found something odd (fs-safe.ts readFailure keeps the code). */
const ERRNO = /^E[A-Z0-9]+$/;

const failed = (e: unknown): { kind: 'failed'; code: string } => ({ kind: 'failed', code: (e as NodeJS.ErrnoException).code ?? 'read failed' });

/** One record by id (the rule above). The fault hook sees `<what>:read` first, so a test can make the read fail. */
export async function readRecordOutcome<R>(fs: FsContext, f: RecordFolder<R>, id: string): Promise<RecordRead<R>> {
  try {
    await fault(fs, `${f.what}:read`);
  } catch (e) {
    return failed(e);
  }
  const d = dirSync(fs, [f.folder]);
  if (d.kind === 'missing') return { kind: 'gone' };
  if (d.kind === 'refused') {
    reportOdd(fs, d.path, d.reason);
    return { kind: 'failed', code: d.reason };
  }
  const r = await readNoFollow(`${d.dir}/${id}.json`, f.cap);
  if (r.kind === 'unreadable' && ERRNO.test(r.reason)) return { kind: 'failed', code: r.reason };
  const rec = r.kind === 'file' ? f.parse(r.bytes.toString('utf8'), id) : null;
  const why = oddReason(r, rec !== null, f.what);
  if (why) reportOdd(fs, `${f.folder}/${id}.json`, why);
  return rec === null ? { kind: 'gone' } : { kind: 'record', rec };
}

/** One record by id, or null (missing, odd: reported, or not readable now). */
export async function readRecord<R>(fs: FsContext, f: RecordFolder<R>, id: string): Promise<R | null> {
  const r = await readRecordOutcome(fs, f, id);
  return r.kind === 'record' ? r.rec : null;
}

/** A folder's records, and the ids of those whose read failed for a passing reason (to be read again). */
export interface RecordScan<R> {
  records: R[];
  unread: { id: string; code: string }[];
}

/**
 * Every record in the folder, and those that could not be read now. Leftover temp files of a write cut short are
 * removed: the root lock makes them this process's, and nothing writes
 * before the scan ends. A folder that cannot be read is reported and holds none.
 */
export async function scanRecords<R>(fs: FsContext, f: RecordFolder<R>): Promise<RecordScan<R>> {
  const out: RecordScan<R> = { records: [], unread: [] };
  const dir = safeDirSync(fs, [f.folder]);
  if (!dir) return out;
  let entries: Dirent[];
  try {
    entries = readdirSync(dir.dir, { withFileTypes: true });
  } catch (e) {
    reportOdd(fs, f.folder, (e as NodeJS.ErrnoException).code ?? 'not readable');
    return out;
  }
  for (const d of entries) {
    if (d.name.startsWith(TEMP_PREFIX)) {
      if (d.isFile()) await removeFileDurable(fs, [f.folder, d.name], `${f.what}-tmp-remove`).catch(() => {});
      continue;
    }
    const id = f.file.exec(d.name)?.[1];
    const odd = oddType(d);
    if (!id || odd !== null) {
      reportOdd(fs, `${f.folder}/${d.name}`, odd ?? `not a ${f.what} file`);
      continue;
    }
    const r = await readRecordOutcome(fs, f, id);
    if (r.kind === 'record') out.records.push(r.rec);
    else if (r.kind === 'failed') out.unread.push({ id, code: r.code });
  }
  return out;
}
