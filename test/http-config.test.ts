import { resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

const cwd = '/srv/desk';

describe('loadConfig', () => {
  test('defaults: loopback, 8787, a root under the working directory, info', () => {
    expect(loadConfig({}, cwd)).toEqual({
      host: '127.0.0.1',
      port: 8787,
      libraryRoot: resolve(cwd, '.desk-library'),
      token: undefined,
      logLevel: 'info',
      allowedHosts: [],
      libraryRemote: null,
      syncInterval: 60,
      author: 'desk <desk@localhost>',
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
