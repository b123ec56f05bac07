import { type Dirent, readdirSync } from 'node:fs';
import { removeFileDurable, TEMP_PREFIX } from './atomic-write.js';
import { type FsContext, oddType, overCap, type ReadOutcome, readNoFollow, reportOdd, safeDirSync } from './fs-safe.js';

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

/** One record by id, or null (missing, or odd: reported). */
export async function readRecord<R>(fs: FsContext, f: RecordFolder<R>, id: string): Promise<R | null> {
  const dir = safeDirSync(fs, [f.folder]);
  if (!dir) return null;
  const r = await readNoFollow(`${dir.dir}/${id}.json`, f.cap);
  const rec = r.kind === 'file' ? f.parse(r.bytes.toString('utf8'), id) : null;
  const why = oddReason(r, rec !== null, f.what);
  if (why) reportOdd(fs, `${f.folder}/${id}.json`, why);
  return rec;
}

/**
 * Every record in the folder. Leftover temp files of a write cut short are
 * removed: the root lock makes them this process's, and nothing writes
 * before the scan ends. A folder that cannot be read is reported and holds none.
 */
export async function scanRecords<R>(fs: FsContext, f: RecordFolder<R>): Promise<R[]> {
  const dir = safeDirSync(fs, [f.folder]);
  if (!dir) return [];
  let entries: Dirent[];
  try {
    entries = readdirSync(dir.dir, { withFileTypes: true });
  } catch (e) {
    reportOdd(fs, f.folder, (e as NodeJS.ErrnoException).code ?? 'not readable');
    return [];
  }
  const out: R[] = [];
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
    const rec = await readRecord(fs, f, id);
    if (rec) out.push(rec);
  }
  return out;
}
