/**
 * 1X2 research on point-in-time features (docs/model-quality.md, "Point in time at every horizon"):
 * the champion recipe against two additions, each walked forward (refit every 90 days, folds by
 * prediction time, training on the results known at each refit):
 * - `gr2`: goal ratings as 1X2 inputs — per team attack/defence moved by the closing 1X2 + O/U 2.5
 *   prices of matches whose results were known by the row's prediction time (the feature group
 *   `groups/goal-rating.ts`, now in `MODEL_FEATURE_NAMES`): `gr_sup` = log(λh/λa), `gr_total` =
 *   log(λh + λa); `gr3` adds the logit of their Poisson draw; `gs2` takes the same two columns from
 *   the goals stage's ratings (`buildGoalInputs`: a closing price counts from its kick-off); `base`
 *   is the recipe without them;
 * - `cal`: a rolling calibration of the model's probabilities, p'_j ∝ exp(a_j + b·log p_j) (a_home = 0),
 *   fitted at each refit on the out-of-sample rows of the previous `CAL_DAYS` whose results were known then.
 * Log loss against the power de-margined opening and closing lines on the same matches (result and both
 * lines), with paired bootstrap 95 % intervals (2,000 draws, seed 15).
 *
 *   node --import tsx bench/pit-model.ts --window=choose    # 2013-07-01 → 2019-07-01 (choose the recipe)
 *   node --import tsx bench/pit-model.ts --window=confirm   # 2019-07-01 → 2021-07-01 (confirm it)
 *   node --import tsx bench/pit-model.ts --window=eval      # 2021-07-01 → 2023-07-01 (report once)
 *   … --horizon=kickoff   # features (and goal ratings) at kick-off, against the closing line
 *   … --only=base,gr2+cal
 */
import {
  buildFeatureRows,
  type FeatureRow,
  labelKnownBy,
  MARKET_FREE_FEATURE_NAMES,
  MODEL_FEATURE_NAMES,
  predictionTimeOf,
} from '../src/features/index.js';
import { buildGoalInputs, marketsFromMatrix, scoreMatrix, walkForwardBacktest } from '../src/model/index.js';
import type { BacktestPrediction } from '../src/model/walk-forward.js';
import { FALLBACK_PARAMS } from '../src/pipeline/stage-fallback.js';
import { addGoalsOdds, loadFootballData } from './football-data.js';

const DAY = 86_400_000;
const arg = (k: string) => process.argv.find((a) => a.startsWith(`--${k}=`))?.split('=')[1];
const WINDOWS: Record<string, [string, string]> = {
  choose: ['2013-07-01', '2019-07-01'],
  confirm: ['2019-07-01', '2021-07-01'],
  eval: ['2021-07-01', '2023-07-01'],
};
const windowName = arg('window') ?? 'choose';
const [fromS, toS] = WINDOWS[windowName]!;
const FROM = Date.parse(`${fromS}T00:00:00Z`);
const TO = Date.parse(`${toS}T00:00:00Z`);
const HORIZON = (arg('horizon') ?? 'early') as 'early' | 'kickoff';
const CAL_DAYS = Number(arg('cal-days') ?? 730);
/** Which calibration parameters are free: `full` (a_draw, a_away, b), `bias` (b = 1), `temp` (a = 0). */
const CAL_FORM = arg('cal-form') ?? 'full';
/** The walk-forward starts this long before the window, so the calibration has past rows at its first refit. */
const WARMUP_DAYS = 730;
const only = arg('only')?.split(',');

const t0 = performance.now();
const { matches, odds } = loadFootballData();
addGoalsOdds(odds);
const AS_OF = new Date(TO);
const rows = buildFeatureRows(matches, odds, AS_OF, { horizon: HORIZON });
const goalInputs = buildGoalInputs(matches, odds, AS_OF, {}, HORIZON === 'kickoff' ? (t) => t : undefined);
const rated = new Map(goalInputs.map((g) => [g.match_id, g.rated]));
const logit = (p: number) => Math.log(p / (1 - p));
for (const r of rows as unknown as Record<string, number>[]) {
  const g = rated.get(r.match_id)!;
  r.gs_sup = Math.log(g[0] / g[1]);
  r.gs_total = Math.log(g[0] + g[1]);
  const lh = Math.exp(r.gr_total - Math.log(1 + Math.exp(-r.gr_sup)));
  r.gr_draw = logit(marketsFromMatrix(scoreMatrix(lh, Math.exp(r.gr_total) - lh, 0), 1).proba_draw);
}
const regionName = new Map(matches.map((m) => [m.regionId, m.regionName]));
console.log(
  `window ${windowName} ${fromS} → ${toS}, horizon ${HORIZON}; features + goal ratings ${((performance.now() - t0) / 1000).toFixed(1)} s`,
);

type Proba = [number, number, number];

/** Walk-forward from the warm-up start; predictions keyed by match id, with their fold's cut-off. */
function walk(featureNames: readonly string[], fallback = false): Map<number, BacktestPrediction> {
  const res = walkForwardBacktest(rows, {
    from: new Date(FROM - WARMUP_DAYS * DAY),
    to: new Date(TO),
    refitDays: 90,
    featureNames,
    ...(fallback ? { params: FALLBACK_PARAMS, family: FALLBACK_PARAMS.family } : {}),
  });
  return new Map(res.predictions.map((p) => [p.match_id, p]));
}

const byId = new Map(rows.map((r) => [r.match_id, r]));

/** Fits p'_j ∝ exp(a_j + b·log p_j) (a_0 = 0) by Newton on the mean log loss + a small ridge towards identity. */
function fitCalibration(ps: Proba[], ys: number[]): [number, number, number] {
  let a1 = 0;
  let a2 = 0;
  let b = 1;
  const ridge = 1e-3;
  for (let it = 0; it < 30; it++) {
    const g = [ridge * a1, ridge * a2, ridge * (b - 1)];
    const H = [
      [ridge, 0, 0],
      [0, ridge, 0],
      [0, 0, ridge],
    ];
    const n = ps.length;
    for (let i = 0; i < n; i++) {
      const lp = ps[i].map((p) => Math.log(Math.max(p, 1e-15)));
      const z = [b * lp[0], a1 + b * lp[1], a2 + b * lp[2]];
      const m = Math.max(...z);
      const e = z.map((v) => Math.exp(v - m));
      const s = e[0] + e[1] + e[2];
      const q = e.map((v) => v / s);
      // J[j] = dz_j/d(a1, a2, b)
      const J = [
        [0, 0, lp[0]],
        [1, 0, lp[1]],
        [0, 1, lp[2]],
      ];
      for (let j = 0; j < 3; j++) {
        const r = q[j] - (ys[i] === j ? 1 : 0);
        for (let k = 0; k < 3; k++) g[k] += (r * J[j][k]) / n;
      }
      // Hessian of the softmax NLL: Jᵀ (diag q − q qᵀ) J.
      for (let k = 0; k < 3; k++)
        for (let l = 0; l < 3; l++) {
          let h = 0;
          for (let j = 0; j < 3; j++) {
            h += q[j] * J[j][k] * J[j][l];
          }
          let qa = 0;
          let qb = 0;
          for (let j = 0; j < 3; j++) {
            qa += q[j] * J[j][k];
            qb += q[j] * J[j][l];
          }
          H[k][l] += (h - qa * qb) / n;
        }
    }
    // A parameter held fixed: its gradient and its Hessian row/column vanish (unit diagonal).
    const fixed = CAL_FORM === 'bias' ? [2] : CAL_FORM === 'temp' ? [0, 1] : [];
    for (const k of fixed) {
      g[k] = 0;
      for (let l = 0; l < 3; l++) H[k][l] = H[l][k] = k === l ? 1 : 0;
    }
    const step = solve3(H, g);
    a1 -= step[0];
    a2 -= step[1];
    b -= step[2];
    if (Math.abs(step[0]) + Math.abs(step[1]) + Math.abs(step[2]) < 1e-10) break;
  }
  return [a1, a2, b];
}

function solve3(A: number[][], v: number[]): number[] {
  const m = A.map((r, i) => [...r, v[i]]);
  for (let c = 0; c < 3; c++) {
    let p = c;
    for (let r = c + 1; r < 3; r++) if (Math.abs(m[r][c]) > Math.abs(m[p][c])) p = r;
    [m[c], m[p]] = [m[p], m[c]];
    for (let r = 0; r < 3; r++) {
      if (r === c) continue;
      const f = m[r][c] / m[c][c];
      for (let k = c; k < 4; k++) m[r][k] -= f * m[c][k];
    }
  }
  return [m[0][3] / m[0][0], m[1][3] / m[1][1], m[2][3] / m[2][2]];
}

function applyCalibration(p: Proba, [a1, a2, b]: [number, number, number]): Proba {
  const z = [b * Math.log(p[0]), a1 + b * Math.log(p[1]), a2 + b * Math.log(p[2])];
  const m = Math.max(...z);
  const e = z.map((v) => Math.exp(v - m));
  const s = e[0] + e[1] + e[2];
  return [e[0] / s, e[1] / s, e[2] / s];
}

/**
 * Rolling calibration: each fold's rows are recalibrated with the map fitted, at the fold's cut-off, on
 * the out-of-sample rows predicted in the previous CAL_DAYS whose results were known at the cut-off.
 */
function calibrated(preds: Map<number, BacktestPrediction>): Map<number, Proba> {
  const list = [...preds.values()];
  const cuts = [...new Set(list.map((p) => p.training_cutoff.getTime()))].sort((a, b) => a - b);
  const out = new Map<number, Proba>();
  for (const cut of cuts) {
    const past = list.filter((p) => {
      const r = byId.get(p.match_id)!;
      const t = predictionTimeOf(r);
      return t < cut && t >= cut - CAL_DAYS * DAY && labelKnownBy(r, cut);
    });
    const fold = list.filter((p) => p.training_cutoff.getTime() === cut);
    const params: [number, number, number] =
      past.length >= 500
        ? fitCalibration(
            past.map((p) => [p.proba_home, p.proba_draw, p.proba_away]),
            past.map((p) => byId.get(p.match_id)!.label as number),
          )
        : [0, 0, 1];
    for (const p of fold)
      out.set(p.match_id, applyCalibration([p.proba_home, p.proba_draw, p.proba_away], params));
  }
  return out;
}

const raw = (preds: Map<number, BacktestPrediction>) =>
  new Map([...preds].map(([id, p]) => [id, [p.proba_home, p.proba_draw, p.proba_away] as Proba]));

const isGr = (n: string) => n.startsWith('gr_');
const BASE = MODEL_FEATURE_NAMES.filter((n) => !isGr(n));
const GR2 = [...BASE, 'gr_sup', 'gr_total'];
const FB = MARKET_FREE_FEATURE_NAMES.filter((n) => !isGr(n));
const GR3 = [...GR2, 'gr_draw'];
const variants: Record<string, () => Map<number, Proba>> = {};
const cache = new Map<string, Map<number, BacktestPrediction>>();
const walked = (key: string, names: readonly string[], fb = false) => {
  if (!cache.has(key)) cache.set(key, walk(names, fb));
  return cache.get(key)!;
};
variants.base = () => raw(walked('base', BASE));
variants['base+cal'] = () => calibrated(walked('base', BASE));
variants.gs2 = () => raw(walked('gs2', [...BASE, 'gs_sup', 'gs_total']));
variants.gr2 = () => raw(walked('gr2', GR2));
variants['gr2+cal'] = () => calibrated(walked('gr2', GR2));
variants.gr3 = () => raw(walked('gr3', GR3));
variants['gr3+cal'] = () => calibrated(walked('gr3', GR3));
variants.fallback = () => raw(walked('fallback', FB, true));
variants['fallback+gr2'] = () => raw(walked('fallback+gr2', [...FB, 'gr_sup', 'gr_total'], true));
variants['fallback+cal'] = () => calibrated(walked('fallback', FB, true));

// The judged matches: predicted in the window, with a result and both lines.
const judged: FeatureRow[] = rows.filter((r) => {
  const t = predictionTimeOf(r);
  return t >= FROM && t < TO && r.label !== null && r.odds_open_home !== null && r.odds_close_home !== null;
});
const ll = (p: readonly number[], y: number) => -Math.log(Math.max(p[y], 1e-15));
const lineLoss = (which: 'open' | 'close') =>
  judged.map((r) =>
    ll(
      which === 'open'
        ? [r.odds_open_home!, r.odds_open_draw!, r.odds_open_away!]
        : [r.odds_close_home!, r.odds_close_draw!, r.odds_close_away!],
      r.label as number,
    ),
  );
const OPEN = lineLoss('open');
const CLOSE = lineLoss('close');

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

/** Mean of a − b and its paired bootstrap 95 % interval (same resampled matches for every call). */
function paired(a: number[], b: number[], idx?: number[]): string {
  const ids = idx ?? a.map((_, i) => i);
  const d = ids.map((i) => a[i] - b[i]);
  const n = d.length;
  const r = rng(15);
  const means: number[] = [];
  for (let k = 0; k < 2000; k++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += d[Math.floor(r() * n)];
    means.push(s / n);
  }
  means.sort((x, y) => x - y);
  const mean = d.reduce((s, v) => s + v, 0) / n;
  return `${mean >= 0 ? '+' : ''}${mean.toFixed(5)} [${means[49].toFixed(5)}, ${means[1949].toFixed(5)}]`;
}

const mean = (xs: number[], idx?: number[]) => {
  const ids = idx ?? xs.map((_, i) => i);
  return ids.reduce((s, i) => s + xs[i], 0) / ids.length;
};
console.log(
  `n ${judged.length}; opening (power) ${mean(OPEN).toFixed(5)}, closing (power) ${mean(CLOSE).toFixed(5)}`,
);
console.log('| variant | log loss | − opening [95 %] | − closing [95 %] | − base [95 %] | s |');
console.log('|---|---|---|---|---|---|');
let baseLoss: number[] | null = null;
for (const [name, make] of Object.entries(variants)) {
  if (only && !only.includes(name)) continue;
  const t = performance.now();
  const preds = make();
  const loss = judged.map((r) => {
    const p = preds.get(r.match_id);
    if (!p) throw new Error(`${name}: match ${r.match_id} not predicted`);
    return ll(p, r.label as number);
  });
  if (name === 'base') baseLoss = loss;
  console.log(
    `| ${name} | ${mean(loss).toFixed(5)} | ${paired(loss, OPEN)} | ${paired(loss, CLOSE)} | ${baseLoss && name !== 'base' ? paired(loss, baseLoss) : '—'} | ${((performance.now() - t) / 1000).toFixed(0)} |`,
  );
  if (process.argv.includes('--regions')) {
    for (const g of [...new Set(judged.map((r) => r.region_id))].sort((a, b) => a - b)) {
      const idx = judged.flatMap((r, i) => (r.region_id === g ? [i] : []));
      console.log(
        `|   ${regionName.get(g)} (${idx.length}) | ${mean(loss, idx).toFixed(5)} | ${paired(loss, OPEN, idx)} | ${paired(loss, CLOSE, idx)} | ${baseLoss && name !== 'base' ? paired(loss, baseLoss, idx) : '—'} | |`,
      );
    }
  }
}
