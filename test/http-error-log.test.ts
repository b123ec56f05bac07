/**
 * A 5xx answer's log line says what it means (docs/operations.md, Logs): a
 * fault at error with its stack; history_unavailable, too_many_subscribers
 * and shutting_down at warn in one line without a stack; library_unwritable
 * at error without a stack. Read from a captured pino stream.
 */
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { DeskError, type ErrorCode } from '../src/errors.js';
import { registerErrorHandling } from '../src/http/errors.js';
import { API, fixture, keptLines } from './http-fixture.js';

const WARN = 40;
const ERROR = 50;

async function appThrowing(err: () => unknown) {
  const kept = keptLines();
  const app = Fastify({ logger: { level: 'info', stream: kept.stream } });
  registerErrorHandling(app);
  app.get('/x', async () => {
    throw err();
  });
  await app.ready();
  const r = await app.inject({ url: '/x' });
  await app.close();
  // the lines beyond fastify's own request and response lines
  return { status: r.statusCode, lines: kept.lines.filter((l) => l.msg !== 'incoming request' && l.msg !== 'request completed') };
}

describe("a 5xx answer's log line", () => {
  it.each([['history_unavailable'], ['too_many_subscribers'], ['shutting_down']] as [ErrorCode][])('%s: warn, one line, no stack', async (code) => {
    const { status, lines } = await appThrowing(() => new DeskError(code, 'expected'));
    expect(status).toBe(503);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: WARN, code, status: 503 });
    expect(lines[0]).not.toHaveProperty('err');
    expect(JSON.stringify(lines[0])).not.toContain('    at ');
  });

  it('library_unwritable: error, one line, no stack', async () => {
    const { status, lines } = await appThrowing(() => new DeskError('library_unwritable', 'the library folder cannot be written (ENOSPC)'));
    expect(status).toBe(507);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: ERROR, code: 'library_unwritable', status: 507 });
    expect(lines[0]).not.toHaveProperty('err');
    expect(JSON.stringify(lines[0])).not.toContain('    at ');
  });

  it('an internal fault: error with its stack', async () => {
    const { status, lines } = await appThrowing(() => new TypeError('a bug'));
    expect(status).toBe(500);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: ERROR, err: { type: 'TypeError', message: 'a bug' } });
    expect((lines[0]!.err as { stack: string }).stack).toContain('    at ');
  });

  it('a desk with no root asked for history: the real app logs no error line', async () => {
    const fx = await fixture({ root: false });
    const kept = keptLines();
    const app = await fx.open({ logger: { level: 'info', stream: kept.stream } });
    try {
      const r = await app.inject({ url: `${API}/templates/alpha/history` });
      expect(r.statusCode).toBe(503);
      expect(r.json()).toMatchObject({ code: 'history_unavailable' });
      expect(kept.lines.filter((l) => (l.level as number) >= ERROR)).toEqual([]);
      expect(kept.lines.filter((l) => l.level === WARN && l.code === 'history_unavailable')).toHaveLength(1);
    } finally {
      await app.close();
      await fx.cleanup();
    }
  });
});
