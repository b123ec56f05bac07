import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSync } from './children.js';
import { fullProof } from './proof-helpers.js';
import { parse } from 'yaml';

// No Docker engine runs here, so the container files are checked by reading
// them, and by Debian's docker-compose (v1) `config`, which needs no engine.
const root = join(import.meta.dirname, '..');
const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8')) as {
  services: Record<string, { ports: string[]; environment: Record<string, string>; volumes: string[] }>;
  volumes: Record<string, unknown>;
};
const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
const service = Object.values(compose.services)[0]!;

describe('docker-compose.yml', () => {
  it('publishes the port on the host loopback only', () => {
    expect(service.ports.length).toBeGreaterThan(0);
    for (const p of service.ports) expect(p).toMatch(/^127\.0\.0\.1:\d+:\d+$/);
  });

  it('listens on all interfaces inside the container, and passes both ways of authenticating through (the service requires one)', () => {
    expect(service.environment.HOST).toBe('0.0.0.0');
    expect(service.environment.DESK_TOKEN).toBe('${DESK_TOKEN:-}');
    expect(service.environment.DESK_USERS_FILE).toBe('${DESK_USERS_FILE:-}');
  });

  it('keeps the library root on a named volume', () => {
    const root = service.environment.DESK_LIBRARY_ROOT;
    const mount = service.volumes.find((v) => v.endsWith(`:${root}`));
    expect(mount).toBeDefined();
    expect(Object.keys(compose.volumes)).toContain(mount!.split(':')[0]);
  });

  // the service reads an empty value as its default, so `docker compose up` without them runs as before
  const sharing = ['DESK_LIBRARY_REMOTE', 'DESK_SYNC_INTERVAL', 'DESK_AUTHOR'];

  it("passes the team library's settings through from the host, empty when unset", () => {
    for (const name of sharing) expect(service.environment[name]).toBe(`\${${name}:-}`);
  });

  const dc = runSync('docker-compose', ['version'], { encoding: 'utf8' });
  it.skipIf(dc.error !== undefined && !process.env.CI)('passes docker-compose config with a token or with a users file', () => {
    const { DESK_TOKEN: _, DESK_USERS_FILE: __, ...clean } = process.env;
    for (const env of [{ ...clean, DESK_TOKEN: 'x' }, { ...clean, DESK_USERS_FILE: '/run/secrets/desk-users.yaml' }]) {
      const ok = runSync('docker-compose', ['-f', 'docker-compose.yml', 'config', '-q'], { cwd: root, env, encoding: 'utf8' });
      expect(ok.status, ok.stderr).toBe(0);
    }
  });

  it.skipIf(dc.error !== undefined && !process.env.CI)("interpolates the team library's settings: the host's values, or empty", () => {
    const environment = (env: NodeJS.ProcessEnv) => {
      const r = runSync('docker-compose', ['-f', 'docker-compose.yml', 'config'], { cwd: root, env, encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      return (Object.values((parse(r.stdout) as typeof compose).services)[0]!).environment;
    };
    const host = Object.fromEntries(Object.entries(process.env).filter(([k]) => !sharing.includes(k)));
    const unset = environment({ ...host, DESK_TOKEN: 'x' });
    for (const name of sharing) expect(unset[name]).toBe('');
    const values = { DESK_LIBRARY_REMOTE: 'git@example.com:team/library.git', DESK_SYNC_INTERVAL: '30', DESK_AUTHOR: 'Ann <ann@example.com>' };
    expect(environment({ ...host, DESK_TOKEN: 'x', ...values })).toMatchObject(values);
  });
});

describe('Dockerfile', () => {
  it('runs the server the build produces', () => {
    const cmd = /^CMD \["node", "([^"]+)"\]$/m.exec(dockerfile);
    expect(cmd?.[1]).toBe('dist/src/server.js');
    // global-setup built dist/ the same way the image does (npm run build)
    expect(existsSync(join(root, cmd![1]!))).toBe(true);
  });

  it('copies what the server reads at run time: the harness and the built page (dist/web)', () => {
    for (const dir of ['harness', 'dist']) expect(dockerfile).toMatch(new RegExp(`^COPY .*\\b${dir}\\b`, 'm'));
  });

  it('installs git with what it needs to reach an ssh or https remote, in the runtime stage', () => {
    const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    const install = /apt-get install -y --no-install-recommends ([^\\\n&]+)/.exec(runtime);
    expect(install?.[1]?.trim().split(/\s+/)).toEqual(expect.arrayContaining(['git', 'openssh-client', 'ca-certificates']));
  });

  it('copies every file the build step needs', () => {
    const buildCopies = dockerfile.slice(0, dockerfile.indexOf('RUN npm run build'));
    for (const f of ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.web.json', 'scripts', 'src'])
      expect(buildCopies).toContain(f);
  });

  // two full tsc builds: `npm run test:proof` (PROOF_ROUNDS=50) runs it, `npm test` checks the copies by reading
  it.runIf(fullProof())('builds from only the files it copies before `npm run build`', () => {
    const dir = mkdtempSync(join(tmpdir(), 'desk-docker-build-'));
    try {
      for (const f of ['package.json', 'tsconfig.json', 'tsconfig.web.json', 'scripts', 'src']) cpSync(join(root, f), join(dir, f), { recursive: true });
      symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
      const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
      for (const project of ['tsconfig.json', 'tsconfig.web.json']) {
        const r = runSync(process.execPath, [tsc, '-p', project], { cwd: dir, encoding: 'utf8' });
        expect(r.status, r.stdout + r.stderr).toBe(0);
      }
      const web = runSync(process.execPath, ['scripts/build-web.mjs'], { cwd: dir, encoding: 'utf8' });
      expect(web.status, web.stdout + web.stderr).toBe(0);
      expect(existsSync(join(dir, 'dist', 'src', 'server.js'))).toBe(true);
      expect(existsSync(join(dir, 'dist', 'web', 'index.html'))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
