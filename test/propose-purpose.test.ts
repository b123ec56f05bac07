/** `POST /templates/propose` answers 200 with a card also when invalid; a purpose that is not one line is an error on it, as `POST /proposals` refuses it (docs/api.md). */
import { describe, expect, test } from 'vitest';
import { ALPHA, API, openApp } from './http-fixture.js';

const GAMMA = ALPHA.replaceAll('alpha', 'gamma');
const ctx = openApp('file');
const propose = (purpose: string) => ctx.app.inject({ method: 'POST', url: `${API}/templates/propose`, payload: { name: 'gamma', purpose, source: GAMMA } });
const at = (card: { problems: { code: string; path: string; severity: string }[] }) => card.problems.map((p) => `${p.code} ${p.path} ${p.severity}`);

describe('the purpose of POST /templates/propose', () => {
  test.each(['two\nlines', 'a\r\nb', 'carriage\rreturn'])('%j: 200, valid false, purpose.multiline at /purpose', async (purpose) => {
    const r = await propose(purpose);
    expect(r.statusCode).toBe(200);
    expect(r.json().valid).toBe(false);
    expect(at(r.json())).toContain('purpose.multiline /purpose error');
  });

  test('near miss: one line, or a line break only around it, is valid', async () => {
    for (const purpose of ['one line', '\n one line \n']) {
      const card = (await propose(purpose)).json();
      expect(card.valid).toBe(true);
      expect(at(card)).toEqual([]);
    }
  });
});
