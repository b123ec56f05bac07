/**
 * The README's first screen is what a newcomer reads: what the service is,
 * then the two commands, before any note on versions; and those notes say
 * that the npm Node ships (npm 10) works, rather than asking for npm 11.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const readme = readFileSync(join(import.meta.dirname, '..', 'README.md'), 'utf8');
const lines = readme.split('\n');
const lineOf = (text: string) => lines.findIndex((l) => l.includes(text));

describe("README's first screen", () => {
  it('shows the two commands within the first 30 lines, after the paragraphs that say what it is', () => {
    const start = lineOf('npm ci && npm start');
    const test = lineOf('npm ci && npm test');
    expect(start).toBeGreaterThan(lineOf('This service keeps that library'));
    expect(start).toBeLessThan(30);
    expect(test).toBeLessThan(30);
  });

  it('puts no version note before the commands', () => {
    const before = lines.slice(0, lineOf('npm ci && npm start')).join('\n');
    expect(before).not.toMatch(/EBADENGINE|npm 11|npm@11|require\(esm\)/);
  });

  it('says npm 10 works and asks nobody to install npm 11', () => {
    const section = readme.slice(readme.indexOf('### Node and npm versions'));
    expect(readme.indexOf('### Node and npm versions')).toBeGreaterThan(readme.indexOf('npm ci && npm test'));
    expect(section.slice(0, section.indexOf('\n## '))).toMatch(/npm 10[^\n]*works/);
    expect(readme).not.toContain('npm install -g npm@11');
  });
});
