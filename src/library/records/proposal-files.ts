import type { ProposalSummary } from '../../schema/proposals.js';
import type { FsContext } from '../disk/fs-safe.js';
import * as records from '../disk/record-folder.js';
import { PROPOSALS, proposalRecord } from '../layout.js';
import type { RecordKind } from './record-index.js';
import { formatRecord, parseRecord, type ProposalRecord, RECORD_CAP, RECORD_FILE, summaryOf } from './proposal-record.js';

/** `proposals/` (layout.ts), read as a record folder (disk/record-folder.ts). */
export const FOLDER = PROPOSALS;

const folder: records.RecordFolder<ProposalRecord> = { folder: FOLDER, what: 'proposal', file: RECORD_FILE, cap: RECORD_CAP, parse: parseRecord };

/** One record by id: the record, gone (missing, or odd: reported), or failed for a passing reason (disk/record-folder.ts). */
export const readRecord = (fs: FsContext, id: string): Promise<records.RecordRead<ProposalRecord>> => records.readRecordOutcome(fs, folder, id);

/** Every record in the folder, and those not readable now; leftover temp files of a write cut short are removed. */
export const scanRecords = (fs: FsContext): Promise<records.RecordScan<ProposalRecord>> => records.scanRecords(fs, folder);

/** The folder as the store's index reads and writes it (record-index.ts). */
export const PROPOSAL_RECORDS: RecordKind<ProposalRecord, ProposalSummary> = {
  folder: FOLDER,
  what: 'proposal',
  plural: 'proposals',
  file: RECORD_FILE,
  path: proposalRecord,
  read: readRecord,
  scan: scanRecords,
  format: formatRecord,
  summary: summaryOf,
};
