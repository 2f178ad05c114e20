/**
 * Speed of the feature and model code on the real data (37,481 matches): wall and CPU time, so a
 * loaded shared machine does not hide the real cost.
 *
 *   node --import tsx bench/features-speed.ts
 */
import { loadavg } from 'node:os';
import { buildFeatureRows, featureRowsToParquet } from '../src/features/index.js';
import { walkForwardBacktest } from '../src/model/index.js';
import { loadFootballData } from './football-data.js';

function measure<T>(fn: () => T): { value: T; wallMs: number; cpuMs: number } {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const value = fn();
  const wallMs = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { value, wallMs, cpuMs: (c.user + c.system) / 1000 };
}

const { matches, odds } = loadFootballData();
const asOf = new Date('2023-07-01T00:00:00Z');
const runs = [0, 1, 2].map(() => measure(() => buildFeatureRows(matches, odds, asOf)));
const best = runs.reduce((a, b) => (a.cpuMs < b.cpuMs ? a : b));
const pq = measure(() => featureRowsToParquet(best.value));
const wf = measure(() =>
  walkForwardBacktest(best.value, { from: new Date('2021-07-01Z'), to: asOf, refitDays: 90 }),
);
const fmt = (m: { wallMs: number; cpuMs: number }) =>
  `${m.wallMs.toFixed(0)} ms wall, ${m.cpuMs.toFixed(0)} ms CPU`;
console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}; ${matches.length} matches`,
);
console.log(`buildFeatureRows (best of 3): ${fmt(best)}`);
console.log(`featureRowsToParquet: ${fmt(pq)}, ${pq.value.length} bytes`);
console.log(`walkForwardBacktest 2021-07-01 → 2023-07-01, ${wf.value.folds.length} refits: ${fmt(wf)}`);
