/**
 * Self time per function of two V8 CPU profiles, each divided by the requests it served, largest
 * differences first: where one server spends the CPU the other does not.
 *
 *   node --import tsx bench/cpuprofile-diff.ts <a.cpuprofile> <requests of a> <b.cpuprofile> <requests of b> [--top 40]
 *
 * Profiles: `bench/precomputed.ts --rounds 1 --modes app,fastify "--node-flags=--cpu-prof
 * --cpu-prof-dir=<dir>"` (one file per server process; requests are the wrk totals, warm-up included).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface Profile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
}

/** Microseconds of self time per function (`name file:line`), idle excluded. */
function selfTime(file: string): Map<string, number> {
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n.callFrame]));
  const out = new Map<string, number>();
  p.samples.forEach((id, i) => {
    const f = byId.get(id)!;
    if (f.functionName === '(idle)') return;
    const key = `${f.functionName || '(anonymous)'} ${f.url.split('/').slice(-2).join('/')}:${f.lineNumber}`;
    out.set(key, (out.get(key) ?? 0) + p.timeDeltas[i]!);
  });
  return out;
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '40' } },
});
const [fileA, nA, fileB, nB] = positionals;
if (!fileA || !nA || !fileB || !nB)
  throw new Error('usage: <a.cpuprofile> <requests> <b.cpuprofile> <requests>');
const a = selfTime(fileA);
const b = selfTime(fileB);
const rows = [...new Set([...a.keys(), ...b.keys()])].map(
  (k) => [k, (a.get(k) ?? 0) / Number(nA), (b.get(k) ?? 0) / Number(nB)] as const,
);
const sum = (i: 1 | 2) => rows.reduce((s, r) => s + r[i], 0).toFixed(1);
console.log(`µs per request: a ${sum(1)}, b ${sum(2)}`);
for (const [k, x, y] of rows
  .sort((p, q) => Math.abs(q[1] - q[2]) - Math.abs(p[1] - p[2]))
  .slice(0, Number(values.top))) {
  console.log(`${x.toFixed(2).padStart(8)} ${y.toFixed(2).padStart(8)}  ${k}`);
}
