/**
 * docs/api.md states one rule for trimming its examples (strings cut at 100
 * characters, lists over three items show two and "… N more", headers shown
 * only with `curl -si`). A reader relies on it to tell a short list from a cut
 * one, so every example must follow it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';

const doc = readFileSync(new URL('../docs/api.md', import.meta.url), 'utf8');
const MORE = /^… \d+ more$/;
/** The longest string an example may show: 100 characters and the `…`. */
const MAX_STRING = 101;

interface Example {
  command: string;
  headers: string[];
  body: string;
}

/** The ```console blocks: the `$ curl` line, any HTTP head, then the body. */
function examples(): Example[] {
  return [...doc.matchAll(/```console\n([\s\S]*?)```/g)].map((m) => {
    const [command = '', ...rest] = m[1]!.trimEnd().split('\n');
    const blank = rest.indexOf('');
    const head = rest[0]?.startsWith('HTTP/') ? rest.slice(0, blank === -1 ? rest.length : blank) : [];
    const body = rest.slice(head.length).join('\n').trim();
    return { command, headers: head, body };
  });
}

/** Every broken rule in a JSON value, as `path: why`. `unified` diff text may be shown whole. */
function breaches(v: unknown, path = ''): string[] {
  if (typeof v === 'string') return v.length > MAX_STRING && !path.endsWith('/unified') ? [`${path}: ${v.length} characters`] : [];
  if (Array.isArray(v)) {
    const cut = v.length > 0 && typeof v.at(-1) === 'string' && MORE.test(v.at(-1) as string);
    const own =
      (cut && v.length !== 3) || (!cut && v.length > 3) ? [`${path}: ${v.length} items shown, not two and "… N more"`] : [];
    return [...own, ...v.flatMap((x, i) => breaches(x, `${path}/${i}`))];
  }
  if (v !== null && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => breaches(x, `${path}/${k}`));
  return [];
}

describe('docs/api.md examples', () => {
  const all = examples();

  test('there are examples to check', () => {
    expect(all.length).toBeGreaterThanOrEqual(25);
  });

  test.each(all.map((e) => [e.command.slice(0, 100), e]))('%s', (_, e) => {
    expect(e.command).toMatch(/^\$ curl /);
    // Headers are shown exactly when curl was asked for them.
    expect(e.headers.length > 0, 'HTTP head shown iff curl -i').toBe(/ -s?i /.test(e.command));
    if (e.body === '') return;
    let json: unknown;
    try {
      json = JSON.parse(e.body);
    } catch {
      throw new Error(`the body is not JSON: ${e.body.slice(0, 80)}`);
    }
    expect(breaches(json)).toEqual([]);
  });
});
