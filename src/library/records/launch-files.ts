import type { LaunchSummary } from '../../schema/launches.js';
import type { FsContext } from '../disk/fs-safe.js';
import * as records from '../disk/record-folder.js';
import { LAUNCHES, launchRecord } from '../layout.js';
import type { RecordKind } from './record-index.js';
import { formatRecord, type LaunchRecord, parseRecord, RECORD_CAP, RECORD_FILE, summaryOf } from './launch-record.js';

/** `launches/` (layout.ts), read as a record folder (disk/record-folder.ts), as `proposals/` is. */
export const FOLDER = LAUNCHES;

const folder: records.RecordFolder<LaunchRecord> = { folder: FOLDER, what: 'launch', file: RECORD_FILE, cap: RECORD_CAP, parse: parseRecord };

/** One record by id: the record, gone (missing, or odd: reported), or failed for a passing reason (disk/record-folder.ts). */
export const readRecord = (fs: FsContext, id: string): Promise<records.RecordRead<LaunchRecord>> => records.readRecordOutcome(fs, folder, id);

/** Every record in the folder, and those not readable now; leftover temp files of a write cut short are removed. */
export const scanRecords = (fs: FsContext): Promise<records.RecordScan<LaunchRecord>> => records.scanRecords(fs, folder);

/** The folder as the store's index reads and writes it (proposals/record-index.ts, shared with proposals). */
export const LAUNCH_RECORDS: RecordKind<LaunchRecord, LaunchSummary> = {
  folder: FOLDER,
  what: 'launch',
  plural: 'launch drafts',
  file: RECORD_FILE,
  path: launchRecord,
  read: readRecord,
  scan: scanRecords,
  format: formatRecord,
  summary: summaryOf,
};
