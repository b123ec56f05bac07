/**
 * The README's `npx desk-library --help` block is the real output, so it
 * cannot drift from the commands the CLI has (it once lacked `user`). On a
 * change to the usage, rewrite the block from the real output with
 * `DESK_WRITE_README=1 npx vitest run test/readme-help.test.ts`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../src/cli.js';
import { packageVersion } from '../src/paths.js';

const readme = join(import.meta.dirname, '..', 'README.md');

async function output(...args: string[]): Promise<string> {
  let out = '';
  await main(args, { out: (s) => (out += s), err: () => {} });
  return out;
}

/** The lines after `$ npx desk-library ARGS` in README's sh block, up to the next prompt or the fence. */
function block(text: string, args: string): { start: number; end: number } {
  const prompt = `$ npx desk-library ${args}\n`;
  const start = text.indexOf(prompt);
  if (start === -1) throw new Error(`README.md has no \`${prompt.trim()}\` line`);
  const from = start + prompt.length;
  const ends = [text.indexOf('\n$ ', from - 1), text.indexOf('\n```', from - 1)].filter((i) => i !== -1);
  return { start: from, end: Math.min(...ends) + 1 };
}

describe("README's command line section", () => {
  it('shows the real `--help` output', async () => {
    const real = await output('--help');
    let text = readFileSync(readme, 'utf8');
    const b = block(text, '--help');
    if (process.env.DESK_WRITE_README === '1' && text.slice(b.start, b.end) !== real) {
      text = text.slice(0, b.start) + real + text.slice(b.end);
      writeFileSync(readme, text);
    }
    const again = block(text, '--help');
    expect(text.slice(again.start, again.end)).toBe(real);
  });

  it('shows the real `--version` output', () => {
    const text = readFileSync(readme, 'utf8');
    const b = block(text, '--version');
    expect(text.slice(b.start, b.end)).toBe(`${packageVersion}\n`);
  });
});
