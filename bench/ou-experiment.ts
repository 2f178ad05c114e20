/**
 * Over/under 2.5 goals OPENING odds as extra model inputs (tried; not adopted — docs/model-quality.md).
 * The O/U odds are read straight from the CSVs (`over_2.5_open`, `under_2.5_open`; closing never used)
 * and added to the feature rows of `buildFeatureRows`; the walk-forward is the pipeline's own.
 *
 *   node --import tsx bench/ou-experiment.ts                      # tuning window 2019-07-01 → 2021-07-01
 *   node --import tsx bench/ou-experiment.ts --eval --only=base,+over+logit   # the one evaluation run
 *
 * Features (missing O/U or market → null plus `ou_missing` = 1, never invented):
 * `ou_over` de-margined P(over 2.5) (proportional), `ou_logit_over` its logit, `ou_total` the total
 * goals λ of a Poisson with that P(over), `ou_pois_draw_logit` the logit of the draw probability of
 * independent Poissons with total λ and the supremacy that reproduces the market's home/away ratio,
 * `ou_draw_gap` that minus the market's draw logit, `ou_x_gap` logit(over) × |market home−away log
 * ratio|, `ou_overround` the O/U book margin.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { buildFeatureRows, type FeatureRow, MODEL_FEATURE_NAMES } from '../src/features/index.js';
import { type TrainParams, walkForwardBacktest } from '../src/model/index.js';
import { FOOTBALL_DATA_DIR, loadFootballData } from './football-data.js';

const WIN = process.argv.includes('--eval')
  ? { from: new Date('2021-07-01T00:00:00Z'), to: new Date('2023-07-01T00:00:00Z') }
  : { from: new Date('2019-07-01T00:00:00Z'), to: new Date('2021-07-01T00:00:00Z') };
const { matches, odds } = loadFootballData();
const ou = new Map<number, [number, number]>();
let id = 0;
for (const f of readdirSync(FOOTBALL_DATA_DIR)
  .filter((f) => f.endsWith('.csv'))
  .sort()) {
  for (const r of parse(readFileSync(join(FOOTBALL_DATA_DIR, f)), {
    columns: true,
    skip_empty_lines: true,
  }) as Record<string, string>[]) {
    id++;
    const o = Number(r['over_2.5_open']);
    const u = Number(r['under_2.5_open']);
    if (r['over_2.5_open'] && r['under_2.5_open'] && o > 1 && u > 1) ou.set(id, [o, u]);
  }
}
function poisCdf2(l: number): number {
  return Math.exp(-l) * (1 + l + (l * l) / 2);
}
function totalFromOver(p: number): number {
  let lo = 0.05,
    hi = 10;
  for (let i = 0; i < 60; i++) {
    const m = (lo + hi) / 2;
    if (1 - poisCdf2(m) < p) lo = m;
    else hi = m;
  }
  return (lo + hi) / 2;
}
function pois(l: number, n: number): number[] {
  const out = [Math.exp(-l)];
  for (let k = 1; k <= n; k++) out.push((out[k - 1] * l) / k);
  return out;
}
function outcome(lh: number, la: number): [number, number, number] {
  const N = 12;
  const ph = pois(lh, N);
  const pa = pois(la, N);
  let h = 0,
    d = 0,
    a = 0;
  for (let i = 0; i <= N; i++)
    for (let j = 0; j <= N; j++) {
      const q = ph[i] * pa[j];
      if (i > j) h += q;
      else if (i === j) d += q;
      else a += q;
    }
  const s = h + d + a;
  return [h / s, d / s, a / s];
}
/** Poisson draw probability given total T and the market's home/away log ratio. */
function poissonDraw(T: number, lr: number): number {
  let lo = -T + 1e-6,
    hi = T - 1e-6;
  for (let i = 0; i < 50; i++) {
    const s = (lo + hi) / 2;
    const o = outcome((T + s) / 2, (T - s) / 2);
    if (Math.log(o[0] / o[2]) < lr) lo = s;
    else hi = s;
  }
  const s = (lo + hi) / 2;
  return outcome((T + s) / 2, (T - s) / 2)[1];
}
const logit = (p: number) => Math.log(p / (1 - p));
function augment(rows: FeatureRow[]): void {
  for (const r of rows) {
    const q = ou.get(r.match_id);
    const x = r as unknown as Record<string, number | null>;
    if (!q || r.mkt_logit_home_away === null) {
      for (const k of [
        'ou_over',
        'ou_logit_over',
        'ou_total',
        'ou_pois_draw_logit',
        'ou_draw_gap',
        'ou_x_gap',
        'ou_overround',
      ])
        x[k] = null;
      x.ou_missing = 1;
      continue;
    }
    const [o, u] = q;
    const p = 1 / o / (1 / o + 1 / u);
    const T = totalFromOver(p);
    const pd = poissonDraw(T, r.mkt_logit_home_away);
    x.ou_over = p;
    x.ou_logit_over = logit(p);
    x.ou_total = T;
    x.ou_pois_draw_logit = logit(pd);
    x.ou_draw_gap = logit(pd) - (r.mkt_logit_draw as number);
    x.ou_x_gap = logit(p) * Math.abs(r.mkt_logit_home_away);
    x.ou_overround = 1 / o + 1 / u - 1;
    x.ou_missing = 0;
  }
}
const rows = buildFeatureRows(matches, odds, WIN.to);
augment(rows);
const base = [...MODEL_FEATURE_NAMES];
const mkt = base.filter((n) => n.startsWith('mkt_'));
const variants: Array<[string, string[], TrainParams]> = [
  ['base', base, {}],
  ['+over+logit', [...base, 'ou_over', 'ou_logit_over', 'ou_missing'], {}],
  ['+logit,x_gap', [...base, 'ou_logit_over', 'ou_x_gap', 'ou_missing'], {}],
  ['+pois_draw', [...base, 'ou_pois_draw_logit', 'ou_draw_gap', 'ou_missing'], {}],
  [
    '+all_ou',
    [
      ...base,
      'ou_over',
      'ou_logit_over',
      'ou_total',
      'ou_pois_draw_logit',
      'ou_draw_gap',
      'ou_x_gap',
      'ou_overround',
      'ou_missing',
    ],
    {},
  ],
  [
    'mkt+all_ou',
    [...mkt, 'ou_logit_over', 'ou_pois_draw_logit', 'ou_draw_gap', 'ou_x_gap', 'ou_missing'],
    {},
  ],
  [
    '+all_ou offset',
    [
      ...base,
      'ou_over',
      'ou_logit_over',
      'ou_total',
      'ou_pois_draw_logit',
      'ou_draw_gap',
      'ou_x_gap',
      'ou_overround',
      'ou_missing',
    ],
    { marketOffset: true },
  ],
  ['+logit', [...base, 'ou_logit_over', 'ou_missing'], {}],
  ['+draw_gap', [...base, 'ou_draw_gap', 'ou_missing'], {}],
  [
    '+all_ou l2=.1',
    [
      ...base,
      'ou_over',
      'ou_logit_over',
      'ou_total',
      'ou_pois_draw_logit',
      'ou_draw_gap',
      'ou_x_gap',
      'ou_overround',
      'ou_missing',
    ],
    { l2: 0.1 },
  ],
  [
    '+all_ou offset l2=.03',
    [
      ...base,
      'ou_over',
      'ou_logit_over',
      'ou_total',
      'ou_pois_draw_logit',
      'ou_draw_gap',
      'ou_x_gap',
      'ou_overround',
      'ou_missing',
    ],
    { marketOffset: true, l2: 0.03 },
  ],
];
const only = process.argv.find((a) => a.startsWith('--only='))?.slice(7);
for (const [name, fn, params] of variants) {
  if (only && !only.split(',').includes(name)) continue;
  const r = walkForwardBacktest(rows, { ...WIN, refitDays: 90, params, featureNames: fn });
  const o = r.metrics.overall;
  console.log(
    `${name} ${JSON.stringify(params)} log_loss ${o.both_model_log_loss.toFixed(5)} rps ${o.both_model_rps.toFixed(5)} | open(power) ${o.open_log_loss.toFixed(5)} ${o.open_rps.toFixed(5)} n ${o.open_n}`,
  );
}
