/**
 * What the goals model's BTTS misses (docs/model-quality.md, "Both teams to score"): on the goals
 * walk-forward (point in time, refit every 90 days) of an earlier window,
 * - per region, the mean predicted and the observed rate of the zero-goal cells (home 0, away 0, 0-0)
 *   and of BTTS;
 * - rolling stacks on the matrix's BTTS, each fitted at a refit on the out-of-sample rows of the previous
 *   730 days whose results were known then (never in-sample rows): `recal` (logit a + b·logit p),
 *   `region` (a per-region intercept on top), `+open` (the de-margined opening BTTS logit as a second
 *   input, on the matches that have that price; the others keep `recal`).
 * Log loss against the opening and closing BTTS lines on the matches with both, paired bootstrap 95 %.
 *
 *   node --import tsx bench/btts-diagnose.ts                      # 2015-07-01 → 2021-07-01
 *   node --import tsx bench/btts-diagnose.ts --eval               # 2021-07-01 → 2023-07-01 (once)
 */
import { RESULT_LAG_MS } from '../src/domain/index.js';
import {
  buildGoalInputs,
  type GoalInput,
  goalsWalkForward,
  pairedBootstrap,
  scoreMatrix,
} from '../src/model/goals/index.js';
import { addGoalsOdds, loadFootballData } from './football-data.js';

const EVAL = process.argv.includes('--eval');
const FROM = Date.parse(EVAL ? '2021-07-01T00:00:00Z' : '2015-07-01T00:00:00Z');
const TO = Date.parse(EVAL ? '2023-07-01T00:00:00Z' : '2021-07-01T00:00:00Z');
const DAY = 86_400_000;
const { matches, odds } = loadFootballData();
addGoalsOdds(odds);
const inputs = buildGoalInputs(matches, odds, new Date('2100-01-01T00:00:00Z'));
const byId = new Map(inputs.map((r) => [r.match_id, r]));
const regionName = new Map(matches.map((m) => [m.regionId, m.regionName]));
// Two years of warm-up so the stacks have past out-of-sample rows at the window's first refit.
const wf = goalsWalkForward(inputs, { from: new Date(FROM - 730 * DAY), to: new Date(TO), refitDays: 90 });

interface Row {
  input: GoalInput;
  cut: number;
  p: number;
  h0: number;
  a0: number;
  z00: number;
  y: number;
}
const rows: Row[] = wf.rows.map((b) => {
  const input = byId.get(b.match_id)!;
  const m = scoreMatrix(b.lh, b.la, b.rho);
  const n = Math.round(Math.sqrt(m.length));
  let h0 = 0;
  let a0 = 0;
  for (let k = 0; k < n; k++) {
    h0 += m[k];
    a0 += m[k * n];
  }
  return {
    input,
    cut: b.training_cutoff.getTime(),
    p: 1 - h0 - a0 + m[0],
    h0,
    a0,
    z00: m[0],
    y: input.home_goals! > 0 && input.away_goals! > 0 ? 1 : 0,
  };
});
const logit = (p: number) => Math.log(p / (1 - p));
const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

/** Logistic regression by Newton (small ridge), columns of X include the intercept. */
function logistic(X: number[][], y: number[]): number[] {
  const d = X[0].length;
  const w = new Array(d).fill(0);
  w[1] = 1; // start at the identity on logit p
  for (let it = 0; it < 25; it++) {
    const g = new Array(d).fill(0);
    const H = Array.from({ length: d }, (_, i) => Array.from({ length: d }, (_, j) => (i === j ? 1e-6 : 0)));
    for (let i = 0; i < X.length; i++) {
      const q = sigmoid(X[i].reduce((s, v, k) => s + v * w[k], 0));
      for (let k = 0; k < d; k++) {
        g[k] += (q - y[i]) * X[i][k];
        for (let l = 0; l < d; l++) H[k][l] += q * (1 - q) * X[i][k] * X[i][l];
      }
    }
    const step = solve(H, g);
    for (let k = 0; k < d; k++) w[k] -= step[k];
    if (step.reduce((s, v) => s + Math.abs(v), 0) < 1e-10) break;
  }
  return w;
}

function solve(A: number[][], v: number[]): number[] {
  const n = v.length;
  const m = A.map((r, i) => [...r, v[i]]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r][c]) > Math.abs(m[p][c])) p = r;
    [m[c], m[p]] = [m[p], m[c]];
    for (let r = 0; r < n; r++) {
      if (r === c || m[c][c] === 0) continue;
      const f = m[r][c] / m[c][c];
      for (let k = c; k <= n; k++) m[r][k] -= f * m[c][k];
    }
  }
  return m.map((r, i) => r[n] / r[i]);
}

const regions = [...new Set(rows.map((r) => r.input.region_id))].sort((a, b) => a - b);
const design = (r: Row, kind: 'recal' | 'region' | 'open'): number[] | null => {
  const base = [1, logit(r.p)];
  if (kind === 'recal') return base;
  if (kind === 'region') return [...base, ...regions.slice(1).map((g) => (r.input.region_id === g ? 1 : 0))];
  const o = r.input.line.btts_open;
  return o === null ? null : [...base, logit(o)];
};

/** Each fold's rows re-predicted by a stack fitted on the past 730 days' out-of-sample rows known at its cut. */
function stacked(kind: 'recal' | 'region' | 'open'): Map<number, number> {
  const out = new Map<number, number>();
  const cuts = [...new Set(rows.map((r) => r.cut))].sort((a, b) => a - b);
  for (const cut of cuts) {
    const past = rows.filter(
      (r) => r.input.pt < cut && r.input.pt >= cut - 730 * DAY && r.input.t + RESULT_LAG_MS <= cut,
    );
    const fit = (k: 'recal' | 'region' | 'open') => {
      const X: number[][] = [];
      const y: number[] = [];
      for (const r of past) {
        const x = design(r, k);
        if (x) {
          X.push(x);
          y.push(r.y);
        }
      }
      return X.length >= 500 ? logistic(X, y) : null;
    };
    const w = fit(kind);
    const wRecal = kind === 'open' ? fit('recal') : w;
    for (const r of rows.filter((x) => x.cut === cut)) {
      const x = design(r, kind);
      const use = x ? w : wRecal;
      const xs = x ?? design(r, 'recal')!;
      out.set(r.input.match_id, use ? sigmoid(xs.reduce((s, v, k) => s + v * use[k], 0)) : r.p);
    }
  }
  return out;
}

const judged = rows.filter(
  (r) =>
    r.input.pt >= FROM &&
    r.input.pt < TO &&
    r.input.line.btts_open !== null &&
    r.input.line.btts_close !== null,
);
const ll = (p: number, y: number) => -Math.log(Math.min(1 - 1e-12, Math.max(1e-12, y ? p : 1 - p)));
const f = (x: number) => x.toFixed(5);
const mean = (xs: number[]) => xs.reduce((s, v) => s + v, 0) / xs.length;
console.log(
  `BTTS, window ${new Date(FROM).toISOString().slice(0, 10)} → ${new Date(TO).toISOString().slice(0, 10)}, n ${judged.length}`,
);
console.log(
  '| region | n | P(home 0) model / seen | P(away 0) model / seen | P(0-0) model / seen | BTTS model / seen |',
);
console.log('|---|---|---|---|---|---|');
for (const g of [0, ...regions]) {
  const rs = judged.filter((r) => g === 0 || r.input.region_id === g);
  if (rs.length === 0) continue;
  const seen = (pred: (r: Row) => boolean) => mean(rs.map((r) => (pred(r) ? 1 : 0)));
  const cell = (m: number, s: number) => `${m.toFixed(4)} / ${s.toFixed(4)}`;
  console.log(
    `| ${g === 0 ? 'all' : regionName.get(g)} | ${rs.length} | ${cell(
      mean(rs.map((r) => r.h0)),
      seen((r) => r.input.home_goals === 0),
    )} | ${cell(
      mean(rs.map((r) => r.a0)),
      seen((r) => r.input.away_goals === 0),
    )} | ${cell(
      mean(rs.map((r) => r.z00)),
      seen((r) => r.input.home_goals === 0 && r.input.away_goals === 0),
    )} | ${cell(mean(rs.map((r) => r.p)), mean(rs.map((r) => r.y)))} |`,
  );
}
const open = judged.map((r) => ll(r.input.line.btts_open!, r.y));
const close = judged.map((r) => ll(r.input.line.btts_close!, r.y));
const model = judged.map((r) => ll(r.p, r.y));
const ci = (d: number[]) => {
  const [lo, hi] = pairedBootstrap(d, 2000, 15);
  return `${f(mean(d))} [${f(lo)}, ${f(hi)}]`;
};
const half = (r: Row) => r.input.pt < (FROM + TO) / 2;
console.log(`\nopening ${f(mean(open))}, closing ${f(mean(close))}`);
console.log(
  '| variant | BTTS log loss | − opening [95 %] | − closing [95 %] | − model [95 %] | − model, 1st half | − model, 2nd half |',
);
console.log('|---|---|---|---|---|---|---|');
for (const [name, preds] of [
  ['model (adopted matrix)', null],
  ['recal', stacked('recal')],
  ['region', stacked('region')],
  ['+open', stacked('open')],
] as const) {
  const loss = judged.map((r) => ll(preds ? preds.get(r.input.match_id)! : r.p, r.y));
  const dm = loss.map((v, i) => v - model[i]);
  const h1 = judged.flatMap((r, i) => (half(r) ? [dm[i]] : []));
  const h2 = judged.flatMap((r, i) => (half(r) ? [] : [dm[i]]));
  console.log(
    `| ${name} | ${f(mean(loss))} | ${ci(loss.map((v, i) => v - open[i]))} | ${ci(loss.map((v, i) => v - close[i]))} | ${preds ? ci(dm) : '—'} | ${preds ? ci(h1) : '—'} | ${preds ? ci(h2) : '—'} |`,
  );
}
