/**
 * `desk-library user add|list|remove|rotate` (docs/security.md, Users and
 * roles): keeps the users file. A new token is printed once, on stdout, and
 * only its sha256 is written; nobody can read it back, so a lost one is
 * rotated, not recovered. The file is edited as a YAML document, so its
 * comments and order stay, and written whole to a temporary file renamed
 * over it: a running service (which reads it again when it changes) never
 * reads half of it.
 */
import { stat } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { type Document, isSeq, parseDocument, YAMLMap } from 'yaml';
import { writeDurable } from '../library/index.js';
import { readUsersFile } from '../http/users-file.js';
import { newToken, parseUsers, tokenDigest, USER_NAME, USER_ROLES, type UserRole } from '../http/users.js';
import { EXIT, type Io } from './io.js';

export const USER_HELP = `usage: desk-library user add NAME --role ROLE [--email EMAIL] --users-file FILE
       desk-library user list --users-file FILE
       desk-library user remove NAME --users-file FILE
       desk-library user rotate NAME --users-file FILE

Keeps the users file the service reads from DESK_USERS_FILE (docs/security.md,
Users and roles). add and rotate print the user's new token once, on
stdout: hand it to the person, it is not kept (only its sha256 is written).
A running service reads the file again when it changes, or on SIGHUP.

  --role ROLE        viewer, conductor or editor
  --email EMAIL      the address their commits are authored with (default NAME@desk)
  --users-file FILE  the users file; add makes it when missing
  -h, --help         this help

exit  0 done, 1 no such user, a name taken or a file with problems,
      2 usage error or a file that cannot be read or written.
`;

type Usage = (why: string) => number;

export async function userCommand(args: string[], io: Io, usage: Usage): Promise<number> {
  const options = { role: { type: 'string' }, email: { type: 'string' }, 'users-file': { type: 'string' } } as const;
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; allowPositionals: true; options: typeof options }>>;
  try {
    parsed = parseArgs({ args, allowPositionals: true, options });
  } catch (e) {
    return usage((e as Error).message);
  }
  const [action, name, ...extra] = parsed.positionals;
  const { role, email, 'users-file': file } = parsed.values;
  if (!action || !['add', 'list', 'remove', 'rotate'].includes(action)) return usage(`user takes add, list, remove or rotate${action ? `, not '${action}'` : ''}`);
  if (!file) return usage('user needs --users-file FILE');
  if (extra.length) return usage(`unexpected '${extra[0]}'`);
  if (action === 'list') {
    if (name !== undefined) return usage('user list takes no NAME');
  } else if (!name || !USER_NAME.test(name)) {
    return usage(`user ${action} needs a NAME: a letter, then up to 63 letters, digits, '.', '_' or '-'`);
  }
  if (action !== 'add' && (role !== undefined || email !== undefined)) return usage(`--role and --email go with user add`);
  if (action === 'add' && (!role || !(USER_ROLES as readonly string[]).includes(role))) return usage(`user add needs --role ${USER_ROLES.join('|')}`);
  if (email !== undefined && !/^[^<>\s@]+@[^<>\s@]+$/.test(email)) return usage(`--email '${email}' is not an address`);

  const loaded = await load(file, action === 'add');
  if (typeof loaded === 'string') {
    io.err(`desk-library: ${loaded}\n`);
    return loaded.includes(': cannot read') ? EXIT.usage : EXIT.problems;
  }
  const { doc, users } = loaded;
  const at = users.findIndex((u) => u.name === name);

  if (action === 'list') {
    for (const u of users) io.out(`${u.name}\t${u.role}\t${u.email ?? ''}\n`);
    return EXIT.ok;
  }
  if (action === 'add' && at >= 0) {
    io.err(`desk-library: ${name} is in ${file} already; rotate their token or remove them first\n`);
    return EXIT.problems;
  }
  if (action !== 'add' && at < 0) {
    io.err(`desk-library: no user ${name} in ${file}\n`);
    return EXIT.problems;
  }
  const token = action === 'remove' ? null : newToken();
  if (action === 'add') {
    const entry = new YAMLMap();
    entry.set('name', name);
    entry.set('role', role as UserRole);
    entry.set('token_sha256', tokenDigest(token!));
    if (email) entry.set('email', email);
    if (!isSeq(doc.get('users'))) doc.set('users', doc.createNode([]));
    const seq = doc.get('users');
    // one user a block, as `user add` writes them, even where the file began as `users: []`
    if (isSeq(seq) && seq.items.length === 0) seq.flow = false;
    doc.addIn(['users'], entry);
  } else if (action === 'remove') {
    doc.deleteIn(['users', at]);
  } else {
    doc.setIn(['users', at, 'token_sha256'], tokenDigest(token!));
  }
  const written = await write(file, doc.toString());
  if (written) {
    io.err(`desk-library: ${written}\n`);
    return EXIT.usage;
  }
  if (token) {
    io.out(`${token}\n`);
    io.err(`desk-library: ${action === 'add' ? `added ${name} (${role})` : `new token for ${name}`}; the token above is shown once\n`);
  } else if (users.length === 1) {
    // the file stays set, so the service lets nobody in rather than everybody (docs/security.md)
    io.err(`desk-library: removed ${name}, the last user: nobody can sign in with this file until one is added (desk-library user add)\n`);
  } else {
    io.err(`desk-library: removed ${name}\n`);
  }
  return EXIT.ok;
}

/** The file as a document and its users; a message when it cannot be read or has problems. A missing file is empty when `create`. */
async function load(file: string, create: boolean): Promise<{ doc: Document; users: ReturnType<typeof parseUsers>['users'] } | string> {
  const read = await readUsersFile(file);
  let text: string;
  if ('text' in read) text = read.text;
  else if (read.why === 'ENOENT' && create) text = 'users: []\n';
  else return `${file}: cannot read (${read.why})`;
  const { users, problems } = parseUsers(text);
  if (problems.length) return `${file} has problems; fix them first:\n  ${problems.join('\n  ')}`;
  const doc = parseDocument(text.trim() === '' ? 'users: []\n' : text);
  return { doc, users };
}

/** Writes the file whole (a temp file flushed, then renamed over it), keeping its mode (a new one is 0600). */
async function write(file: string, text: string): Promise<string | null> {
  try {
    const mode = await stat(file).then((s) => s.mode & 0o777, () => 0o600);
    await writeDurable(file, text, mode);
    return null;
  } catch (e) {
    return `${file}: cannot write (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`;
  }
}
