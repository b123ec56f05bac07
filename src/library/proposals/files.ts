import { type Dirent, readdirSync } from 'node:fs';
import { removeFileDurable, TEMP_PREFIX } from '../disk/atomic-write.js';
import { type FsContext, oddType, overCap, type ReadOutcome, readNoFollow, reportOdd, safeDirSync } from '../disk/fs-safe.js';
import { parseRecord, type ProposalRecord, RECORD_CAP, RECORD_FILE } from './record.js';
import { PROPOSALS } from '../layout.js';

/**
 * Reading `proposals/` with the safe primitives (fs-safe.ts): never a link
 * followed, a FIFO waited on or a file over the cap read. What is not a record
 * the service wrote is reported (once, by the caller's `report`) and skipped.
 */

/** `proposals/` (layout.ts) */
export const FOLDER = PROPOSALS;

/** Why a read found no record, or null when there was nothing to find. */
function oddReason(r: ReadOutcome, parsed: boolean): string | null {
  if (r.kind === 'missing') return null;
  if (r.kind === 'file') return parsed ? null : 'not a proposal record';
  return r.kind === 'too_large' ? overCap(r.size) : r.reason;
}

/** One record by id, or null (missing, or odd: reported). */
export async function readRecord(fs: FsContext, id: string): Promise<ProposalRecord | null> {
  const dir = safeDirSync(fs, [FOLDER]);
  if (!dir) return null;
  const r = await readNoFollow(`${dir.dir}/${id}.json`, RECORD_CAP);
  const rec = r.kind === 'file' ? parseRecord(r.bytes.toString('utf8'), id) : null;
  const why = oddReason(r, rec !== null);
  if (why) reportOdd(fs, `${FOLDER}/${id}.json`, why);
  return rec;
}

/**
 * Every record in the folder. Leftover temp files of a write cut short are
 * removed: the root lock makes them this process's, and nothing writes
 * before the scan ends. A folder that cannot be read is reported and holds none.
 */
export async function scanRecords(fs: FsContext): Promise<ProposalRecord[]> {
  const dir = safeDirSync(fs, [FOLDER]);
  if (!dir) return [];
  let entries: Dirent[];
  try {
    entries = readdirSync(dir.dir, { withFileTypes: true });
  } catch (e) {
    reportOdd(fs, FOLDER, (e as NodeJS.ErrnoException).code ?? 'not readable');
    return [];
  }
  const out: ProposalRecord[] = [];
  for (const d of entries) {
    if (d.name.startsWith(TEMP_PREFIX)) {
      if (d.isFile()) await removeFileDurable(fs, [FOLDER, d.name], 'proposal-tmp-remove').catch(() => {});
      continue;
    }
    const id = RECORD_FILE.exec(d.name)?.[1];
    const odd = oddType(d);
    if (!id || odd !== null) {
      reportOdd(fs, `${FOLDER}/${d.name}`, odd ?? 'not a proposal file');
      continue;
    }
    const rec = await readRecord(fs, id);
    if (rec) out.push(rec);
  }
  return out;
}
