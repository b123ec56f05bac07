/**
 * A launch preview of the shipped `quick-fix` with 100 tickets (100 runs,
 * each with its prompts folded): through the route (`app.inject` on a
 * temp root, so request parsing, the library's read and the answer's
 * serialization count) and in the format layer alone. The goal is the
 * route under 20 ms; the ratio is against validating quick-fix once,
 * measured in the same run, so a slow machine shows as slow in both.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../src/app.js';
import { previewLaunch } from '../src/template/launch.js';
import { validateTemplate } from '../src/template/validate.js';
import { type BenchRow, median } from './table.js';

const GOAL_MS = 20;

/** The folder holding harness/: up from this file (dist/bench when compiled), else the working directory. */
function projectRoot(): string {
  for (let d = dirname(fileURLToPath(import.meta.url)); d !== dirname(d); d = dirname(d)) {
    if (existsSync(join(d, 'harness/templates'))) return d;
  }
  return process.cwd();
}

async function samples(n: number, fn: () => unknown): Promise<number> {
  const xs: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    xs.push(performance.now() - t);
  }
  return median(xs);
}

export async function bench(): Promise<BenchRow[]> {
  const project = projectRoot();
  const harnessDir = join(project, 'harness');
  const source = readFileSync(join(harnessDir, 'templates', 'quick-fix.yaml'), 'utf8');
  const catalogue = {
    roles: new Set(readdirSync(join(harnessDir, 'roles'))),
    templates: new Set(readdirSync(join(harnessDir, 'templates')).map((f) => f.replace(/\.yaml$/, ''))),
  };
  const tickets = Array.from({ length: 100 }, (_, i) => `DESK-${1000 + i}`);
  const model = validateTemplate(source, { name: 'quick-fix', catalogue }).template;
  if (!model) throw new Error('quick-fix did not validate');

  const dir = await mkdtemp(join(tmpdir(), 'desk-bench-launch-'));
  const app = await buildApp({ libraryOptions: { root: join(dir, 'root'), harnessDir }, web: false });
  try {
    const request = () => app.inject({ method: 'POST', url: '/api/desk/templates/quick-fix/launch-preview', payload: { inputs: { tickets } } });
    const first = await request();
    if (first.statusCode !== 200 || first.json().runs.length !== 100) throw new Error(`launch preview answered ${first.statusCode}`);
    // reading the answer's JSON is the client's cost, not the preview's
    const inject = async () => {
      const r = await request();
      if (r.statusCode !== 200) throw new Error(`launch preview answered ${r.statusCode}`);
    };
    const validate = () => validateTemplate(source, { name: 'quick-fix', catalogue });
    const fold = () => previewLaunch(model, { tickets });
    // warm every path so the JIT has settled before any is timed
    for (let i = 0; i < 30; i++) {
      await inject();
      validate();
      fold();
    }
    const base = await samples(200, validate);
    const route = await samples(100, inject);
    const pure = await samples(200, fold);
    return [
      {
        name: 'launch preview quick-fix, 100 tickets, via the route (÷ validate quick-fix once)',
        value: route,
        unit: 'ms',
        baseline: base,
        baselineName: 'validate quick-fix',
        ratio: route / base,
        goal: `≤ ${GOAL_MS} ms`,
        ok: route <= GOAL_MS,
      },
      {
        name: 'previewLaunch quick-fix, 100 tickets, format layer (÷ validate quick-fix once)',
        value: pure,
        unit: 'ms',
        baseline: base,
        baselineName: 'validate quick-fix',
        ratio: pure / base,
      },
    ];
  } finally {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  }
}
