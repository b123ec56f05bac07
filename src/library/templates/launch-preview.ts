/**
 * The launch preview of a template as it loads (docs/api.md, Launch
 * preview): the runs a launch would start with these inputs. Writes
 * nothing; the inputs and runs are the format layer's (src/template/launch.ts).
 */
import { DeskError } from '../../errors.js';
import { previewLaunch } from '../../template/launch.js';
import { ifMatchPasses } from '../disk/markers.js';
import type { LibraryReads } from '../entries.js';

/**
 * The preview, with the name and the ETag of the version previewed; null
 * when no template of that name loads. `ifMatch` pins the version: a stale
 * one is 412. A template that could not be saved today is refused: its
 * preview would promise runs no launch can start.
 */
export async function launchPreview(library: Pick<LibraryReads, 'getTemplate'>, name: string, inputs: Readonly<Record<string, unknown>>, ifMatch: string | undefined) {
  const d = await library.getTemplate(name);
  if (!d) return null;
  if (!ifMatchPasses(ifMatch, d.etag)) throw new DeskError('precondition_failed', `${name} changed since it was read`);
  if (!d.valid || !d.model) {
    throw new DeskError('template_invalid_for_launch', `${name} is not valid; fix its problems before launching it`, { problems: d.problems });
  }
  return { name: d.name, etag: d.etag, ...previewLaunch(d.model, inputs) };
}
