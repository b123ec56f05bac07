import type { LibraryLogger } from './context.js';
import { type FsContext, reportOdd } from './disk/fs-safe.js';
import { journalOdd, sweepJournal } from './disk/journal.js';
import { adoptLegacy } from './disk/journal-legacy.js';
import { recoverRoot } from './disk/recovery.js';
import { upgradeSubject } from './upgrade/apply.js';
import { JOURNAL } from './layout.js';
import { finishUpgrade } from './upgrade/journal.js';

/**
 * The start's roll-forward (docs/architecture.md, "Crash records"), under
 * the root's lock and before any write is taken, in the order each record
 * needs the one before it done:
 *
 * 1. the previous release's records (under `.git/`) adopted into the journal
 *    (disk/journal-legacy.ts), and its temp files removed;
 * 2. intents: every name's files whole again (disk/recovery.ts);
 * 3. an upgrade cut short after its files: its one commit queued, from the
 *    files now whole (upgrade/journal.ts);
 *
 * then, as the library opens, 4. the queued commits, in order, before the
 * look for changes made on disk (history/open.ts), which leaves the paths of
 * 5. a sync round to the sync's first round, which rolls it forward on the
 * same remote head (sync/sync.ts): finishing a round needs the remote.
 */
export async function rollForward(fs: FsContext, logger: LibraryLogger): Promise<void> {
  // said once at start; the writes that need the folder are refused, naming it
  const odd = journalOdd(fs.root);
  if (odd) reportOdd(fs, JOURNAL, odd);
  const adopted = await adoptLegacy(fs.root);
  if (adopted.round || adopted.upgrade || adopted.commits) logger.warn(adopted, 'records the previous release left are finished now');
  sweepJournal(fs.root);
  const done = await recoverRoot(fs);
  if (done.templates.length || done.roles.length) logger.warn(done, 'finished writes interrupted before the last stop');
  await finishUpgrade(fs, logger, upgradeSubject);
}
