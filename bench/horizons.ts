/**
 * Two horizons and the market-free fallback, evaluated ONCE on 2021-07-01 → 2023-07-01 (walk-forward, refit every 90 days):
 * - early horizon (opening odds only; the served features) against the de-margined opening line;
 * - kick-off horizon (features at kick-off: latest odds = closing; the same recipe refit on them)
 *   against the de-margined closing line;
 * - the market-free fallback (FALLBACK_PARAMS on MARKET_FREE_FEATURE_NAMES: no odds of the match
 *   itself) against the opening line, and its absolute log loss (target ≤ 0.985).
 * Each with a PAIRED bootstrap 95 % interval of the mean log-loss difference (model − line), matches
 * resampled, 2,000 draws, seed 15; overall and per region, on the matches with both lines and a result.
 * No parameter is chosen here: the champion's recipe is the library default and the fallback's was
 * fixed on 2017-07..2019-07 and 2019-07..2021-07 (docs/model-quality.md).
 *
 *   node --import tsx bench/horizons.ts            # prints the markdown tables of docs/model-quality.md
 */
import type { Probabilities } from '../src/domain/index.js';
import { buildFeatureRows, demargin, MARKET_FREE_FEATURE_NAMES } from '../src/features/index.js';
import { walkForwardBacktest } from '../src/model/index.js';
import type { BacktestPrediction } from '../src/model/walk-forward.js';
import { FALLBACK_PARAMS } from '../src/pipeline/stage-fallback.js';
import { loadFootballData } from './football-data.js';

const EVAL = { from: new Date('2021-07-01T00:00:00Z'), to: new Date('2023-07-01T00:00:00Z') };
const DRAWS = 2000;
const SEED = 15;

const t0 = performance.now();
const { matches, odds } = loadFootballData();
const regionName = new Map(matches.map((m) => [m.regionId, m.regionName]));
const regionOf = new Map(matches.map((m) => [m.id, m.regionId]));
const early = buildFeatureRows(matches, odds, EVAL.to);
const kickoff = buildFeatureRows(matches, odds, EVAL.to, { horizon: 'kickoff' });
const label = new Map(early.filter((r) => r.label !== null).map((r) => [r.match_id, r.label as number]));

const wf = { ...EVAL, refitDays: 90 };
const runs = {
  early: walkForwardBacktest(early, wf).predictions,
  kickoff: walkForwardBacktest(kickoff, wf).predictions,
  fallback: walkForwardBacktest(early, {
    ...wf,
    params: FALLBACK_PARAMS,
    family: FALLBACK_PARAMS.family,
    featureNames: MARKET_FREE_FEATURE_NAMES,
  }).predictions,
};
const seconds = (performance.now() - t0) / 1000;

function lineOf(id: number, which: 'open' | 'close'): Probabilities | null {
  const o = odds.get(id);
  if (!o) return null;
  return which === 'open'
    ? demargin(o.open_home, o.open_draw, o.open_away)
    : demargin(o.close_home, o.close_draw, o.close_away);
}

const ll = (p: Probabilities | readonly number[], y: number) => -Math.log(Math.max(p[y], 1e-15));

interface Pair {
  id: number;
  region: number;
  model: number;
  line: number;
}

/** Matches with a result and BOTH lines (the same set for every comparison). */
function pairs(preds: BacktestPrediction[], which: 'open' | 'close'): Pair[] {
  const out: Pair[] = [];
  for (const p of preds) {
    const y = label.get(p.match_id);
    const open = lineOf(p.match_id, 'open');
    const close = lineOf(p.match_id, 'close');
    if (y === undefined || !open || !close) continue;
    out.push({
      id: p.match_id,
      region: regionOf.get(p.match_id) ?? -1,
      model: ll([p.proba_home, p.proba_draw, p.proba_away], y),
      line: ll(which === 'open' ? open : close, y),
    });
  }
  return out;
}

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

interface Row {
  n: number;
  model: number;
  line: number;
  diff: number;
  lo: number;
  hi: number;
}

/** Mean log losses and the paired bootstrap 95 % interval of mean(model − line). */
function summarise(ps: Pair[]): Row {
  const n = ps.length;
  const d = ps.map((p) => p.model - p.line);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const r = rng(SEED);
  const means: number[] = [];
  for (let b = 0; b < DRAWS; b++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += d[Math.floor(r() * n)];
    means.push(s / n);
  }
  means.sort((a, b) => a - b);
  return {
    n,
    model: mean(ps.map((p) => p.model)),
    line: mean(ps.map((p) => p.line)),
    diff: mean(d),
    lo: means[Math.floor(0.025 * DRAWS)],
    hi: means[Math.ceil(0.975 * DRAWS) - 1],
  };
}

const f = (x: number, k = 4) => x.toFixed(k);
function table(title: string, ps: Pair[], lineName: string): string {
  const lines = [
    `**${title}**`,
    '',
    `| region | n | model log loss | ${lineName} log loss | model − line | paired bootstrap 95 % |`,
    '|---|---:|---:|---:|---:|---|',
  ];
  const row = (name: string, s: Row) =>
    `| ${name} | ${s.n} | ${f(s.model)} | ${f(s.line)} | ${f(s.diff, 5)} | [${f(s.lo, 5)}, ${f(s.hi, 5)}] |`;
  lines.push(row('**all**', summarise(ps)));
  const regions = [...new Set(ps.map((p) => p.region))].sort((a, b) => a - b);
  for (const g of regions)
    lines.push(row(regionName.get(g) ?? String(g), summarise(ps.filter((p) => p.region === g))));
  return lines.join('\n');
}

const fbAll = runs.fallback.filter((p) => label.has(p.match_id));
const fbLL =
  fbAll.reduce(
    (a, p) => a + ll([p.proba_home, p.proba_draw, p.proba_away], label.get(p.match_id) as number),
    0,
  ) / fbAll.length;

console.log(
  [
    table('Early horizon (opening odds only) vs the opening line', pairs(runs.early, 'open'), 'opening'),
    '',
    table(
      'Kick-off horizon (latest odds = closing) vs the closing line',
      pairs(runs.kickoff, 'close'),
      'closing',
    ),
    '',
    table(
      'Market-free fallback (odds of the match hidden) vs the opening line',
      pairs(runs.fallback, 'open'),
      'opening',
    ),
    '',
    `Fallback on every predicted match with a result (odds or not): n ${fbAll.length}, log loss ${f(fbLL)}.`,
    `Walk-forward 2021-07-01 → 2023-07-01, refit every 90 days; ${DRAWS} paired bootstrap draws (seed ${SEED}); ${seconds.toFixed(1)} s for features + 3 walk-forwards.`,
  ].join('\n'),
);
