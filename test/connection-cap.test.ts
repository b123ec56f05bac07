/**
 * The connection cap (src/http/connection-cap.ts, docs/operations.md,
 * Limits): the soft "Max open files" limit read from /proc/self/limits, less
 * what the library keeps back; 1024 where it cannot be read.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionCap, openFilesLimit, processConnectionCap } from '../src/http/connection-cap.js';

/** /proc/self/limits as Linux writes it, with the open-files line given. */
const limits = (openFiles: string) => `Limit                     Soft Limit           Hard Limit           Units     
Max cpu time              unlimited            unlimited            seconds   
Max file size             unlimited            unlimited            bytes     
Max processes             96367                96367                processes 
${openFiles}
Max locked memory         8388608              8388608              bytes     
`;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'desk-conn-cap-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('openFilesLimit', () => {
  it('reads the soft limit, not the hard one', () => {
    expect(openFilesLimit(limits('Max open files            1024                 1048576              files     '))).toBe(1024);
    expect(openFilesLimit(limits('Max open files            20000                20000                files     '))).toBe(20000);
  });

  it('is null for a missing line, unlimited, or anything not a number', () => {
    expect(openFilesLimit(limits(''))).toBeNull();
    expect(openFilesLimit('')).toBeNull();
    for (const soft of ['unlimited', '-1', '0', '1e9', 'x']) {
      expect(openFilesLimit(limits(`Max open files            ${soft}                1048576              files     `)), soft).toBeNull();
    }
  });
});

describe('connectionCap', () => {
  it('keeps 256 descriptors back, or half of a small limit', () => {
    expect(connectionCap(1024)).toBe(768);
    expect(connectionCap(20000)).toBe(19744);
    expect(connectionCap(512)).toBe(256);
    expect(connectionCap(256)).toBe(128);
    expect(connectionCap(1)).toBe(1);
  });

  it('leaves room under the usual 1024 for the 64 event streams and the waits held on proposals and drafts', () => {
    expect(connectionCap(1024)).toBeGreaterThanOrEqual(64 + 2 * 256);
  });
});

describe('processConnectionCap', () => {
  it('reads the given limits file', async () => {
    const file = join(dir, 'limits');
    await writeFile(file, limits('Max open files            4096                 4096                 files     '));
    expect(processConnectionCap(file)).toEqual({ maxConnections: 3840, openFiles: 4096, fromProc: true });
  });

  it('falls back to a limit of 1024 when the file is missing or says nothing usable', async () => {
    expect(processConnectionCap(join(dir, 'none'))).toEqual({ maxConnections: 768, openFiles: 1024, fromProc: false });
    const file = join(dir, 'odd');
    await writeFile(file, limits('Max open files            unlimited            unlimited            files     '));
    expect(processConnectionCap(file)).toEqual({ maxConnections: 768, openFiles: 1024, fromProc: false });
  });
});
