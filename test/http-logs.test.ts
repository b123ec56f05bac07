/** Logs (docs/operations.md): one line per request, one per write naming who; no template text. */
import { afterEach, beforeEach, expect, test } from 'vitest';
import type { App } from '../src/app.js';
import { ALPHA, API, type Fixture, fixture, keptLines } from './http-fixture.js';

let fx: Fixture;
let app: App;
let lines: Record<string, unknown>[];

beforeEach(async () => {
  fx = await fixture();
  const kept = keptLines();
  lines = kept.lines;
  app = await fx.open({ logger: { level: 'info', stream: kept.stream } });
});
afterEach(async () => {
  await app.close();
  await fx.cleanup();
});

const SECRET = 'a purpose nobody should find in a log';

test('a read is one line; a save is one request line and one write line with who', async () => {
  await app.inject({ url: `${API}/templates/alpha` });
  expect(lines.filter((l) => l.msg === 'request')).toHaveLength(1);
  expect(lines.at(-1)).toMatchObject({ msg: 'request', method: 'GET', url: `${API}/templates/alpha`, status: 200, who: '127.0.0.1' });

  lines.length = 0;
  const source = ALPHA.replace('one worker then a gate', SECRET);
  const r = await app.inject({ method: 'PUT', url: `${API}/templates/alpha`, payload: { source } });
  expect(r.statusCode).toBe(200);
  expect(lines.filter((l) => l.msg === 'request')).toHaveLength(1);
  const writes = lines.filter((l) => l.msg !== 'request' && !String(l.msg).startsWith('history:'));
  expect(writes).toHaveLength(1);
  expect(writes[0]).toMatchObject({ name: 'alpha', before: 'shipped', after: 'edited', who: '127.0.0.1' });
  expect(JSON.stringify(lines)).not.toContain(SECRET);
});

test('a refusal is one line carrying its code', async () => {
  // the history's start lines (docs/history.md) come in the background, whenever its first commit lands
  const own = () => lines.filter((l) => !String(l.msg).startsWith('history:'));
  await app.inject({ method: 'PUT', url: `${API}/templates/alpha`, payload: { source: ALPHA }, headers: { 'if-match': '"0"' } });
  expect(own()).toHaveLength(1);
  expect(own()[0]).toMatchObject({ msg: 'request', status: 412, code: 'precondition_failed' });
  lines.length = 0;
  await app.inject({ url: `${API}/nowhere` });
  expect(own()).toHaveLength(1);
  expect(own()[0]).toMatchObject({ status: 404, code: 'not_found' });
});
