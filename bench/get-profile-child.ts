/**
 * Where one template's GET spends its CPU: `node get-profile-child.js <root> <name> <count>`
 * answers `GET /api/desk/templates/<name>` count times through fastify's
 * inject (the route, the library and the serialisation; not the socket),
 * under the inspector's sampling profiler, and prints one JSON line
 * (ProfileResult): the share of the samples each part of the answer holds.
 * A sample goes to the innermost part on its stack, so the parts add up.
 */
import { Session } from 'node:inspector/promises';
import { buildApp } from '../src/app.js';
import { classifySamples, type Part, type ProfileNode } from './profile-parts.js';

export interface ProfileResult {
  name: string;
  requests: number;
  /** µs per request, under the profiler */
  usPerRequest: number;
  /** part → share of the samples, 0..1 */
  parts: Record<string, number>;
}

/** Innermost match wins: the order here only breaks ties within one frame. */
const PARTS: Part[] = [
  ['validate (a memo miss)', (fn, url) => fn === 'validateTemplate' && url.includes('/template/validate')],
  ['memo proof (refs asked again)', (fn) => fn === 'stillHolds'],
  ['text diff (jsdiff)', (fn, url) => fn === 'lineDiff' || url.includes('/diff/lib')],
  ['graph diff', (fn) => fn === 'graphDiff'],
  ['card (nodes, loops, cords, header)', (fn) => fn === 'buildCard'],
  ['read files + sha256', (fn) => fn === 'readTemplate'],
  ['catalogue lookups (lstat)', (fn) => fn === 'pointCatalogue' || fn === 'pointLook' || fn === 'look'],
  ['weak ETag + answer memo', (fn) => fn === 'answerKey' || fn === 'cachedAnswer'],
  ['serialisation (response schema)', (fn, url) => url.includes('fast-json-stringify') || (fn === 'serialize' && url.includes('fastify')) || fn === 'anonymous'],
  ['getTemplate (rest)', (fn) => fn === 'getTemplate'],
  ['route handler (rest)', (_fn, url) => url.includes('/http/routes/templates')],
  ['fastify + inject', (_fn, url) => url.includes('node_modules/fastify') || url.includes('light-my-request') || url.includes('avvio') || url.includes('find-my-way')],
  ['garbage collection', (fn) => fn === '(garbage collector)'],
  ['other (idle, program)', (fn) => fn === '(idle)' || fn === '(program)'],
];

async function main(root: string, name: string, count: number): Promise<ProfileResult> {
  const app = await buildApp({ libraryOptions: { root }, web: false });
  const url = `/api/desk/templates/${name}`;
  const get = async () => {
    const r = await app.inject({ method: 'GET', url });
    if (r.statusCode !== 200) throw new Error(`${url} answered ${r.statusCode}`);
  };
  for (let i = 0; i < 300; i++) await get(); // the JIT and every memo warm
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
  const t = performance.now();
  for (let i = 0; i < count; i++) await get();
  const ms = performance.now() - t;
  const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: { nodes: ProfileNode[]; samples: number[] } };
  session.disconnect();
  await app.close();

  return { name, requests: count, usPerRequest: (ms * 1000) / count, parts: classifySamples(profile, PARTS) };
}

const [root, name, count] = process.argv.slice(2);
if (!root || !name || !Number.isInteger(Number(count))) throw new Error('usage: get-profile-child.js <root> <name> <count>');
process.stdout.write(`${JSON.stringify(await main(root, name, Number(count)))}\n`);
