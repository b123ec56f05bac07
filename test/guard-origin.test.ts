/**
 * A state change must come from the service's own page (CSRF): an Origin
 * that is not ours, `Origin: null`, or Sec-Fetch-Site cross-site/same-site
 * is 403 forbidden_origin, and the route never runs.
 */
import { describe, expect, it } from 'vitest';
import { isOwnOrigin } from '../src/http/guard-host.js';
import { codeOf, guardApp, PORT, SAVE, send } from './guard-fixture.js';

const OWN = [`http://127.0.0.1:${PORT}`, `http://localhost:${PORT}`, `http://[::1]:${PORT}`];
const FOREIGN = [
  'null',
  'http://evil.example',
  `http://evil.example:${PORT}`,
  `http://localhost:${PORT + 1}`,
  'http://localhost',
  `https://localhost:${PORT}`,
  `http://localhost:${PORT}/`,
  `http://user@localhost:${PORT}`,
  `http://localhost:${PORT}, http://evil.example`,
  `file://localhost:${PORT}`,
  `http://127.0.0.1.evil.example:${PORT}`,
];

describe('Origin guard', () => {
  it.each(OWN)('a save from %s goes through', async (origin) => {
    const { app, calls } = await guardApp();
    const res = await send(app, { method: 'PUT', url: '/api/desk/templates/x', ...SAVE, headers: { ...SAVE.headers, origin } });
    expect(res.statusCode).toBe(200);
    expect(calls()).toBe(1);
  });

  it('a save with no Origin (curl, the desk process) goes through', async () => {
    const { app } = await guardApp();
    const res = await send(app, { method: 'PUT', url: '/api/desk/templates/x', ...SAVE });
    expect(res.statusCode).toBe(200);
  });

  it.each(FOREIGN)('a state change from %j is 403 and changes nothing', async (origin) => {
    const { app, calls } = await guardApp();
    for (const method of ['PUT', 'POST', 'PATCH', 'DELETE'] as const) {
      const res = await send(app, { method, url: '/api/desk/templates/x', ...SAVE, headers: { ...SAVE.headers, origin } });
      expect(res.statusCode).toBe(403);
      expect(codeOf(res)).toBe('forbidden_origin');
    }
    expect(calls()).toBe(0);
  });

  it.each(['cross-site', 'same-site', 'something-new'])('Sec-Fetch-Site: %s is 403 even with our Origin', async (site) => {
    const { app, calls } = await guardApp();
    const res = await send(app, {
      method: 'POST',
      url: '/api/desk/templates/x',
      ...SAVE,
      headers: { ...SAVE.headers, origin: OWN[0]!, 'sec-fetch-site': site },
    });
    expect(res.statusCode).toBe(403);
    expect(codeOf(res)).toBe('forbidden_origin');
    expect(calls()).toBe(0);
  });

  it.each(['same-origin', 'none'])('Sec-Fetch-Site: %s goes through', async (site) => {
    const { app } = await guardApp();
    const res = await send(app, {
      method: 'POST',
      url: '/api/desk/templates/x',
      ...SAVE,
      headers: { ...SAVE.headers, origin: OWN[1]!, 'sec-fetch-site': site },
    });
    expect(res.statusCode).toBe(200);
  });

  it('reads are not state changes: GET and HEAD from another site are answered', async () => {
    const { app } = await guardApp();
    for (const method of ['GET', 'HEAD'] as const) {
      const res = await send(app, {
        method,
        url: '/api/desk/health',
        headers: { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' },
      });
      expect(res.statusCode).toBe(200);
    }
  });

  it('a configured name is an origin over http and https; loopback names only over http', () => {
    const extra = [{ name: 'desk.example' }, { name: 'desk.lan', port: 8443 }];
    expect(isOwnOrigin('https://desk.example', PORT, extra)).toBe(true);
    expect(isOwnOrigin('http://desk.example', PORT, extra)).toBe(true);
    expect(isOwnOrigin(`http://desk.example:${PORT}`, PORT, extra)).toBe(true);
    expect(isOwnOrigin('https://desk.example:9999', PORT, extra)).toBe(false);
    expect(isOwnOrigin('https://desk.lan:8443', PORT, extra)).toBe(true);
    expect(isOwnOrigin('https://desk.lan', PORT, extra)).toBe(false);
    expect(isOwnOrigin(`https://localhost:${PORT}`, PORT, extra)).toBe(false);
    expect(isOwnOrigin(`HTTP://localhost:${PORT}`, PORT, extra)).toBe(false);
  });

  it('on port 80 the origin has no port', async () => {
    const { app } = await guardApp({ port: 80 });
    const res = await app.inject({
      method: 'PUT',
      url: '/api/desk/templates/x',
      payload: SAVE.payload,
      headers: { ...SAVE.headers, host: 'localhost', origin: 'http://localhost' },
    });
    expect(res.statusCode).toBe(200);
  });
});
