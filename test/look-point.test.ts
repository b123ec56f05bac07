/**
 * The catalogue asked name by name (src/library/look.ts pointCatalogue)
 * answers exactly what a whole look's catalogue answers, over roots made
 * odd on purpose: folders where files go, links where folders go, role
 * folders without role.md, invalid kits, intents part way. A save and a
 * single read use the point catalogue; the list uses the whole look; the two
 * must never disagree, or a template would validate one way in the list
 * and another in its page.
 */
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatRoleIntent } from '../src/library/disk/intents.js';
import { look, pointCatalogue } from '../src/library/look.js';
import { libraryContext, silentLogger } from '../src/library/reader.js';
import { loadShipped, type Shipped } from '../src/library/shipped.js';
import { READ_ONLY_TEMPLATES } from '../src/library/templates/read-only.js';
import { harnessDir } from '../src/paths.js';

const TEMPLATE_NAMES = ['alpha', 'quick-fix', 'write', 'ticket-input', 'Bad_Name', 'x'];
// reviewer and critic are built in; the others are not
const ROLE_NAMES = ['reviewer', 'critic', 'auditor', 'helper', 'Bad-Role'];

const templateEntry = fc.constantFrom('none', 'file', 'folder', 'link', 'marker only');
const roleEntry = fc.constantFrom('none', 'folder, kit', 'folder, no kit', 'folder, bad kit', 'folder, empty', 'file', 'link', 'save intent', 'reset intent');
const folderKind = fc.constantFrom('folder', 'missing', 'file', 'link');

const rootShape = fc.record({
  templatesFolder: folderKind,
  rolesFolder: folderKind,
  templates: fc.tuple(...TEMPLATE_NAMES.map(() => templateEntry)),
  roles: fc.tuple(...ROLE_NAMES.map(() => roleEntry)),
});

type Shape = typeof rootShape extends fc.Arbitrary<infer T> ? T : never;

let base: string;
let shipped: Shipped;
let n = 0;

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'desk-point-')));
  shipped = await loadShipped(harnessDir);
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

async function folder(root: string, name: string, kind: string): Promise<string | null> {
  const at = join(root, name);
  if (kind === 'missing') return null;
  if (kind === 'file') await writeFile(at, 'not a folder');
  if (kind === 'link') {
    await mkdir(join(root, `real-${name}`));
    await symlink(join(root, `real-${name}`), at);
  }
  if (kind !== 'folder') return null;
  await mkdir(at);
  return at;
}

async function makeRoot(shape: Shape): Promise<string> {
  const root = join(base, String(n++));
  await mkdir(root);
  const templates = await folder(root, 'templates', shape.templatesFolder);
  if (templates) {
    for (const [i, kind] of shape.templates.entries()) {
      const name = TEMPLATE_NAMES[i]!;
      const file = join(templates, `${name}.yaml`);
      if (kind === 'file') await writeFile(file, `template: { name: ${name} }\n`);
      if (kind === 'folder') await mkdir(file);
      if (kind === 'link') await symlink('/etc/hostname', file);
      if (kind === 'marker only') await writeFile(join(templates, `.${name}.shipped`), `${'0'.repeat(64)}\n`);
    }
  }
  const roles = await folder(root, 'roles', shape.rolesFolder);
  if (roles) {
    for (const [i, kind] of shape.roles.entries()) {
      const name = ROLE_NAMES[i]!;
      const dir = join(roles, name);
      if (kind.startsWith('folder')) {
        await mkdir(dir);
        if (kind !== 'folder, empty') await writeFile(join(dir, 'role.md'), `# ${name}\n\nWorks.\n`);
        if (kind === 'folder, kit') await writeFile(join(dir, 'kit.json'), '{ "tools": ["tickets.update"] }\n');
        if (kind === 'folder, bad kit') await writeFile(join(dir, 'kit.json'), '{ "tools": 3 }\n');
      }
      if (kind === 'file') await writeFile(dir, 'not a folder');
      if (kind === 'link') await symlink(base, dir);
      if (kind === 'save intent') {
        await mkdir(dir);
        await writeFile(join(dir, 'role.md'), '# old\n\nOld words.\n');
        await writeFile(join(roles, `.${name}.intent`), formatRoleIntent({ op: 'save', role_md: '# new\n\nNew words.\n', kit: '{ "tools": ["shell.run"] }\n', marker: null }));
      }
      if (kind === 'reset intent') {
        await mkdir(dir);
        await writeFile(join(dir, 'role.md'), '# gone\n\nGoing.\n');
        await writeFile(join(roles, `.${name}.intent`), formatRoleIntent({ op: 'reset' }));
      }
    }
  }
  return root;
}

describe('the catalogue asked name by name', () => {
  it('answers every has() and kits.get() as the whole look does', async () => {
    await fc.assert(
      fc.asyncProperty(rootShape, async (shape) => {
        const root = await makeRoot(shape);
        const ctx = libraryContext({ fs: { root }, shipped, readOnly: READ_ONLY_TEMPLATES, now: Date.now, logger: silentLogger, validate: undefined });
        const point = pointCatalogue(ctx);
        const whole = look(ctx).catalogue;
        for (const name of [...TEMPLATE_NAMES, ...shipped.templates.keys()]) expect(point.templates.has(name), `template ${name}`).toBe(whole.templates.has(name));
        for (const name of [...ROLE_NAMES, ...shipped.roles.keys()]) {
          expect(point.roles.has(name), `role ${name}`).toBe(whole.roles.has(name));
          expect(point.kits?.get(name), `kit of ${name}`).toEqual(whole.kits?.get(name));
        }
        // walking a set is the whole look's set
        expect(new Set(point.templates)).toEqual(new Set(whole.templates));
      }),
      { numRuns: Number(process.env.PROOF_ROUNDS ?? 3) >= 50 ? 300 : 60, seed: Number(process.env.PROOF_SEED ?? 20261201) },
    );
  });
});
