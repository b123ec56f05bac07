import type { Dirent } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { READ_ONLY_TEMPLATES } from '../library/index.js';
import { isTemplateName } from '../template/names.js';
import { LIMITS } from '../template/read.js';
import { type CliProblem, fileProblem } from './codes.js';

/**
 * What `validate` was given, file by file: folders walked, `-` read from
 * stdin, and every file the desk would never load as a template refused with
 * why, so CI cannot pass on a file the service ignores (docs/operations.md,
 * "Validating in CI").
 */
export type Input =
  /** a template to validate; `name` the one its file name gives (absent: stdin with no --name, name unchecked) */
  | { kind: 'source'; label: string; name: string | undefined; source: string }
  /** a file the desk would not load (`file.not_loaded`) or that cannot be read (`file.unreadable`) */
  | { kind: 'refused' | 'unreadable'; label: string; problem: CliProblem };

export interface InputOptions {
  /** for `-`: the file name messages show and the name rule checks */
  name?: string | undefined;
  stdin: AsyncIterable<Buffer | string>;
}

/** `FILE` is the file name (`quick-fix.yaml`, `templates/quick-fix.yaml`) or a bare template name (for --name). */
export function templateNameOf(file: string): string {
  return basename(file).replace(/\.yaml$/, '');
}

/**
 * Why the desk would not load `file` as a template, or null when it would:
 * the service reads `templates/<name>.yaml` only, for a name of the name
 * pattern that is not a read-only template's (src/library/look.ts).
 */
export function notLoaded(file: string, bareNameAllowed = false): string | null {
  const base = basename(file);
  if (base.endsWith('.yml')) return `the desk loads only .yaml files and never reads ${base}; rename it to ${base.slice(0, -4)}.yaml`;
  if (!base.endsWith('.yaml') && !bareNameAllowed) return `${base} is not a .yaml file; the desk loads templates/<name>.yaml only`;
  const name = templateNameOf(base);
  if (!isTemplateName(name)) return `'${name}' is not a template name (lowercase letters, digits and dashes, at most 64), so the desk never loads this file; rename it`;
  if (READ_ONLY_TEMPLATES.has(name)) return `'${name}' is a read-only template registered by code; the desk ignores a file of that name; rename it`;
  return null;
}

/**
 * Every input, in the order given, a folder's files in name order; and the
 * folders that gave none, so a run pointed at the wrong folder is not
 * mistaken for a clean one.
 */
export async function collectInputs(args: readonly string[], opts: InputOptions): Promise<{ inputs: Input[]; empty: string[] }> {
  const inputs: Input[] = [];
  const empty: string[] = [];
  for (const arg of args) {
    const got = arg === '-' ? [await fromStdin(opts)] : await fromPath(arg);
    if (got.length === 0) empty.push(arg);
    inputs.push(...got);
  }
  return { inputs, empty };
}

async function fromStdin(opts: InputOptions): Promise<Input> {
  const label = opts.name ?? '-';
  if (opts.name !== undefined) {
    const why = notLoaded(opts.name, true);
    if (why) return { kind: 'refused', label, problem: fileProblem('file.not_loaded', why) };
  }
  try {
    const source = await readStream(opts.stdin);
    return { kind: 'source', label, name: opts.name === undefined ? undefined : templateNameOf(opts.name), source };
  } catch (e) {
    return unreadable(label, e);
  }
}

async function fromPath(path: string): Promise<Input[]> {
  let isDir: boolean;
  try {
    isDir = (await stat(path)).isDirectory();
  } catch (e) {
    return [unreadable(path, e)];
  }
  return isDir ? walk(path) : [await fromFile(path)];
}

async function fromFile(path: string): Promise<Input> {
  const why = notLoaded(path);
  if (why) return { kind: 'refused', label: path, problem: fileProblem('file.not_loaded', why) };
  try {
    return { kind: 'source', label: path, name: templateNameOf(path), source: await readCapped(path) };
  } catch (e) {
    return unreadable(path, e);
  }
}

/**
 * A folder's `*.yaml` files, and its `*.yml` files refused, under every
 * sub-folder; entries starting with a dot (markers, intents, kept bases,
 * .git) are the library's own and skipped, as the service skips them. A
 * link is never followed: the service refuses one where a template would be.
 */
async function walk(dir: string): Promise<Input[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (e) {
    return [unreadable(dir, e)];
  }
  const out: Input[] = [];
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (e.name.startsWith('.')) continue;
    const path = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await walk(path)));
    else if (!/\.ya?ml$/.test(e.name)) continue;
    else if (e.isSymbolicLink()) out.push({ kind: 'refused', label: path, problem: fileProblem('file.not_loaded', `${e.name} is a symbolic link, which the desk never follows; replace it with the file itself`) });
    else out.push(await fromFile(path));
  }
  return out;
}

function unreadable(label: string, e: unknown): Input {
  const why = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
  return { kind: 'unreadable', label, problem: fileProblem('file.unreadable', `cannot read: ${why}`) };
}

/**
 * Reads at most one byte over the size cap: the reader reports `limit.size`
 * from that alone, and a huge file never has to fit in memory.
 */
async function readCapped(file: string): Promise<string> {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(LIMITS.sizeBytes + 1);
    let n = 0;
    while (n < buf.length) {
      const { bytesRead } = await fh.read(buf, n, buf.length - n, n);
      if (bytesRead === 0) break;
      n += bytesRead;
    }
    return buf.subarray(0, n).toString('utf8');
  } finally {
    await fh.close();
  }
}

/** Stdin up to one byte over the cap, like readCapped; the rest is left unread. */
async function readStream(stream: AsyncIterable<Buffer | string>): Promise<string> {
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const chunk of stream) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    chunks.push(b);
    n += b.length;
    if (n > LIMITS.sizeBytes) break;
  }
  return Buffer.concat(chunks).subarray(0, LIMITS.sizeBytes + 1).toString('utf8');
}
