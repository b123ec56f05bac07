import { resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ConfigError, defaultAuthor, loadConfig } from '../src/config.js';

const cwd = '/srv/desk';

describe('loadConfig', () => {
  test('defaults: loopback, 8787, a root under the working directory, info', () => {
    expect(loadConfig({}, cwd)).toEqual({
      host: '127.0.0.1',
      port: 8787,
      libraryRoot: resolve(cwd, '.desk-library'),
      token: undefined,
      usersFile: null,
      authProxy: null,
      logLevel: 'info',
      allowedHosts: [],
      libraryRemote: null,
      syncInterval: 60,
      author: defaultAuthor(),
      decidedKeep: 1000,
      proposalsPerHour: 120,
      launchesPerHour: 120,
    });
  });

  test('DESK_LIBRARY_ROOT set but empty means no root; set means that folder', () => {
    expect(loadConfig({ DESK_LIBRARY_ROOT: '' }, cwd).libraryRoot).toBeNull();
    expect(loadConfig({ DESK_LIBRARY_ROOT: 'lib' }, cwd).libraryRoot).toBe(resolve(cwd, 'lib'));
    expect(loadConfig({ DESK_LIBRARY_ROOT: '/abs/lib' }, cwd).libraryRoot).toBe('/abs/lib');
  });

  test('a non-loopback HOST without DESK_TOKEN is refused, with one it is allowed', () => {
    for (const HOST of ['0.0.0.0', '::', '192.168.1.5', 'example.com']) {
      expect(() => loadConfig({ HOST }, cwd), HOST).toThrow(ConfigError);
      expect(loadConfig({ HOST, DESK_TOKEN: 's3cret' }, cwd).token).toBe('s3cret');
    }
    for (const HOST of ['127.0.0.1', 'localhost', '::1']) expect(loadConfig({ HOST }, cwd).host).toBe(HOST);
  });

  test('the refusal says why and what to set', () => {
    try {
      loadConfig({ HOST: '0.0.0.0' }, cwd);
      expect.unreachable();
    } catch (e) {
      expect((e as Error).message).toContain('DESK_TOKEN');
    }
  });

  test('PORT and LOG_LEVEL are checked', () => {
    expect(loadConfig({ PORT: '9000' }, cwd).port).toBe(9000);
    expect(loadConfig({ PORT: '0' }, cwd).port).toBe(0);
    for (const PORT of ['x', '65536', '-1', '80.5']) expect(() => loadConfig({ PORT }, cwd), PORT).toThrow(ConfigError);
    expect(loadConfig({ LOG_LEVEL: 'DEBUG' }, cwd).logLevel).toBe('debug');
    expect(() => loadConfig({ LOG_LEVEL: 'chatty' }, cwd)).toThrow(ConfigError);
  });

  test('DESK_ALLOWED_HOSTS is a comma-separated list', () => {
    expect(loadConfig({ DESK_ALLOWED_HOSTS: 'desk.lan, desk.local:8787,' }, cwd).allowedHosts).toEqual([
      'desk.lan',
      'desk.local:8787',
    ]);
  });
});

describe('DESK_LIBRARY_REMOTE names a repository, never a program (docs/security.md, What git runs)', () => {
  const remoteOf = (DESK_LIBRARY_REMOTE: string) => loadConfig({ DESK_LIBRARY_REMOTE }, cwd).libraryRemote;
  const refusal = (DESK_LIBRARY_REMOTE: string): unknown => {
    try {
      loadConfig({ DESK_LIBRARY_REMOTE }, cwd);
    } catch (e) {
      return e;
    }
    return null;
  };

  test('a leading dash, any `<transport>::` form and a URL of another scheme are refused at start, naming the setting', () => {
    for (const v of [
      '-x',
      '--upload-pack=touch /tmp/x',
      'ext::sh -c touch% /tmp/x',
      'fd::3',
      'fd::3,4',
      'EXT::sh',
      'hg::https://example.com/repo',
      'testgit::/srv/team.git',
      'http://example.com/team.git',
      'ftp://example.com/team.git',
      'fd://3',
    ]) {
      const e = refusal(v);
      expect(e, v).toBeInstanceOf(ConfigError);
      expect((e as Error).message, v).toContain('DESK_LIBRARY_REMOTE');
    }
  });

  test('a path, file://, ssh://, git@host:path, https:// and git:// are taken', () => {
    expect(remoteOf('team.git')).toBe(resolve(cwd, 'team.git'));
    expect(remoteOf('/srv/team.git')).toBe('/srv/team.git');
    expect(remoteOf('./x-team.git')).toBe(resolve(cwd, 'x-team.git'));
    for (const v of ['file:///srv/team.git', 'ssh://git@example.com/team.git', 'git@example.com:team/library.git', 'https://example.com/team/library.git', 'git://example.com/library.git', 'HTTPS://example.com/x.git']) {
      expect(remoteOf(v), v).toBe(v);
    }
  });
});
