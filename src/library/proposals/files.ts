import type { FsContext } from '../disk/fs-safe.js';
import * as records from '../disk/record-folder.js';
import { PROPOSALS } from '../layout.js';
import { parseRecord, type ProposalRecord, RECORD_CAP, RECORD_FILE } from './record.js';

/** `proposals/` (layout.ts), read as a record folder (disk/record-folder.ts). */
export const FOLDER = PROPOSALS;

const folder: records.RecordFolder<ProposalRecord> = { folder: FOLDER, what: 'proposal', file: RECORD_FILE, cap: RECORD_CAP, parse: parseRecord };

/** One record by id, or null (missing, or odd: reported). */
export const readRecord = (fs: FsContext, id: string): Promise<ProposalRecord | null> => records.readRecord(fs, folder, id);

/** Every record in the folder; leftover temp files of a write cut short are removed. */
export const scanRecords = (fs: FsContext): Promise<ProposalRecord[]> => records.scanRecords(fs, folder);
