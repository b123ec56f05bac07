import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openLibrary } from '../src/library/library.js';
import { validateTemplate } from '../src/template/validate.js';
import { harnessDir } from '../src/paths.js';
import { type BenchRow, median } from './table.js';

/**
 * The library's cache (issue 5 §1): listing a root of many operator copies
 * when nothing changed, against reading and validating every file afresh in
 * the same run. And the cost of a durable save (fsyncs, intent, marker)
 * against a plain writeFile, for scale.
 */

async function timeAsync(fn: () => Promise<unknown>, ms = 300, min = 5): Promise<number> {
  const samples: number[] = [];
  const until = performance.now() + ms;
  while (samples.length < min || performance.now() < until) {
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
  }
  return median(samples);
}

export async function bench(): Promise<BenchRow[]> {
  const base = await mkdtemp(join(tmpdir(), 'desk-bench-'));
  const root = join(base, 'root');
  const t = join(root, 'templates');
  await mkdir(t, { recursive: true });
  // 8 shipped copies, edited, plus 92 custom variants of them: 100 operator files
  const shipped = (await readdir(join(harnessDir, 'templates'))).filter((f) => f.endsWith('.yaml'));
  const sources: [string, string][] = [];
  for (let i = 0; i < 100; i++) {
    const f = shipped[i % shipped.length]!;
    const orig = f.slice(0, -5);
    const name = i < shipped.length ? orig : `${orig}-v${i}`;
    const src = (await readFile(join(harnessDir, 'templates', f), 'utf8')).replace(`name: ${orig}`, `name: ${name}`);
    sources.push([name, src]);
    await writeFile(join(t, `${name}.yaml`), src);
  }
  // files older than the racy window, as an operator's library is
  const old = new Date(Date.now() - 60_000);
  for (const [name] of sources) await utimes(join(t, `${name}.yaml`), old, old);

  const lib = await openLibrary({ root });
  const catalogue = await lib.catalogue();
  await lib.listTemplates();
  const warm = await timeAsync(() => lib.listTemplates());
  const cold = await timeAsync(async () => {
    for (const [name] of sources) validateTemplate(await readFile(join(t, `${name}.yaml`), 'utf8'), { name, catalogue });
  });

  const plainDir = join(base, 'plain');
  await mkdir(plainDir);
  let n = 0;
  const save = await timeAsync(() => lib.saveTemplate('quick-fix', sources[2]![1].replace('purpose:', `# ${n++}\n  purpose:`)), 300, 10);
  const plain = await timeAsync(() => writeFile(join(plainDir, 'x.yaml'), `# ${n++}\n`), 300, 10);
  await lib.close();
  await rm(base, { recursive: true, force: true });

  return [
    {
      name: 'list 100 unchanged templates (cached) ÷ read + validate all',
      value: warm,
      unit: 'ms',
      baseline: cold,
      baselineName: 'read + validate 100 files',
      ratio: warm / cold,
      goal: '≤ 0.25',
      ok: warm / cold <= 0.25,
    },
    { name: 'durable save of a shipped copy (intent, copy, marker, fsyncs) ÷ plain writeFile', value: save, unit: 'ms', baseline: plain, baselineName: 'writeFile', ratio: save / plain },
  ];
}
