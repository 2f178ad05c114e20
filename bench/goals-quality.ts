/**
 * Goals model quality (docs/model-quality.md): the adopted recipe (src/model/goals) walked
 * forward on the real CSVs, refit every 90 days; log loss of O/U 2.5 and BTTS against the de-margined
 * opening and closing lines, overall and per region, with paired bootstrap intervals against both; and the
 * goals model's own 1X2 log loss next to the opening line's.
 *
 *   node --import tsx bench/goals-quality.ts                 # tuning window 2015-07-01 → 2021-07-01
 *   node --import tsx bench/goals-quality.ts --eval          # the evaluation window 2021-07-01 → 2023-07-01
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { twoWayCandidate } from '../src/analytics/goals-simulation.js';
import { simulateBets } from '../src/analytics/simulation.js';
import { buildFeatureRows, demargin } from '../src/features/index.js';
import type { MarketLossRow } from '../src/model/goals/walk-forward.js';
import {
  buildGoalInputs,
  goalsWalkForward,
  marketsFromMatrix,
  scoreMatrix,
  walkForwardBacktest,
} from '../src/model/index.js';
import { FOOTBALL_DATA_DIR, loadFootballData } from './football-data.js';

const EVAL = process.argv.includes('--eval');
const from = new Date(EVAL ? '2021-07-01T00:00:00Z' : '2015-07-01T00:00:00Z');
const to = new Date(EVAL ? '2023-07-01T00:00:00Z' : '2021-07-01T00:00:00Z');
const { matches, odds } = loadFootballData();
let id = 0;
const n = (v: string | undefined) => (v ? Number(v) : null);
for (const f of readdirSync(FOOTBALL_DATA_DIR)
  .filter((f) => f.endsWith('.csv'))
  .sort()) {
  for (const r of parse(readFileSync(join(FOOTBALL_DATA_DIR, f)), {
    columns: true,
    skip_empty_lines: true,
  }) as Record<string, string>[]) {
    id++;
    Object.assign(odds.get(id)!, {
      open_over25: n(r['over_2.5_open']),
      open_under25: n(r['under_2.5_open']),
      close_over25: n(r['over_2.5_close']),
      close_under25: n(r['under_2.5_close']),
      open_btts_yes: n(r.bts_yes_open),
      open_btts_no: n(r.bts_no_open),
      close_btts_yes: n(r.bts_yes_close),
      close_btts_no: n(r.bts_no_close),
    });
  }
}
const t0 = performance.now();
const inputs = buildGoalInputs(matches, odds, new Date('2100-01-01T00:00:00Z'));
const t1 = performance.now();
const res = goalsWalkForward(inputs, { from, to, refitDays: 90 });
const t2 = performance.now();
console.log(
  `window ${from.toISOString().slice(0, 10)} → ${to.toISOString().slice(0, 10)}; inputs ${((t1 - t0) / 1000).toFixed(2)} s, walk-forward ${((t2 - t1) / 1000).toFixed(2)} s (${res.folds.length} folds, ${res.rows.length} predictions)`,
);
const regionName = new Map(matches.map((m) => [String(m.regionId), m.regionName]));
const fmt = (r: MarketLossRow | null) =>
  r
    ? `${String(r.n).padStart(6)} | ${r.model.toFixed(4)} | ${r.open.toFixed(4)} | ${r.close.toFixed(4)} | ${(r.model - r.open).toFixed(4)} [${r.diff_open_ci[0].toFixed(4)}, ${r.diff_open_ci[1].toFixed(4)}] | ${(r.model - r.close).toFixed(4)} [${r.diff_close_ci[0].toFixed(4)}, ${r.diff_close_ci[1].toFixed(4)}]`
    : '     — | — | — | — | — | —';
console.log(
  '| region | O/U n | model | open | close | model − open [95 % CI] | model − close [95 % CI] | BTTS n | model | open | close | model − open [95 % CI] | model − close [95 % CI] |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
console.log(`| all | ${fmt(res.metrics.overall.ou25)} | ${fmt(res.metrics.overall.btts)} |`);
for (const [rid, m] of Object.entries(res.metrics.by_region)) {
  console.log(`| ${regionName.get(rid)} | ${fmt(m.ou25)} | ${fmt(m.btts)} |`);
}
// 1X2 of the goals model's own matrix vs the de-margined opening line (power), same matches.
const byId = new Map(matches.map((m) => [m.id, m]));
// The 1X2 champion recipe (pipeline defaults) walked forward over the same window, same refits.
const champ = new Map(
  walkForwardBacktest(buildFeatureRows(matches, odds, new Date('2100-01-01T00:00:00Z')), {
    from,
    to,
    refitDays: 90,
  }).predictions.map((p) => [p.match_id, [p.proba_home, p.proba_draw, p.proba_away]]),
);
let lm = 0;
let lo = 0;
let lc = 0;
let k = 0;
for (const p of res.rows) {
  const c = champ.get(p.match_id);
  if (!c) continue;
  const m = byId.get(p.match_id)!;
  const o = odds.get(p.match_id)!;
  const open = demargin(o.open_home, o.open_draw, o.open_away);
  if (!open || m.homeScore === null || m.awayScore === null) continue;
  const y = m.homeScore > m.awayScore ? 0 : m.homeScore === m.awayScore ? 1 : 2;
  const mk = marketsFromMatrix(scoreMatrix(p.lh, p.la, p.rho), 1);
  lm -= Math.log([mk.proba_home, mk.proba_draw, mk.proba_away][y]);
  lo -= Math.log(open[y]);
  lc -= Math.log(c[y]);
  k++;
}
console.log(
  `1X2 on the same ${k} matches: goals matrix ${(lm / k).toFixed(5)}, 1X2 champion recipe ${(lc / k).toFixed(5)}, opening line ${(lo / k).toFixed(5)}`,
);

// Flat-stake betting on the same out-of-sample rows: the 1X2 simulation's edge rule (EDGE_THRESHOLD 0.05)
// at CLOSING prices, baselines favourite and always-first (over / yes) — as runGoalsSimulateStage does.
for (const market of ['ou25', 'btts'] as const) {
  const cands = [];
  for (const p of res.rows) {
    const m = byId.get(p.match_id)!;
    const o = odds.get(p.match_id) as unknown as Record<string, number | null>;
    const a = market === 'ou25' ? o.close_over25 : o.close_btts_yes;
    const b = market === 'ou25' ? o.close_under25 : o.close_btts_no;
    if (!(a && a > 1 && b && b > 1) || m.homeScore === null || m.awayScore === null) continue;
    const mk = marketsFromMatrix(scoreMatrix(p.lh, p.la, p.rho), 1);
    const won = market === 'ou25' ? m.homeScore + m.awayScore > 2.5 : m.homeScore > 0 && m.awayScore > 0;
    cands.push(
      twoWayCandidate(
        { match_id: m.id, region_id: m.regionId, region_name: m.regionName, season: m.season },
        market === 'ou25' ? mk.over['2.5'] : mk.btts_yes,
        [a, b],
        won,
      ),
    );
  }
  const sim = simulateBets(cands, { edgeThreshold: 0.05 });
  const f = (x: { roi_pct: number | null; n_bets: number }) =>
    `${x.roi_pct === null ? '—' : x.roi_pct.toFixed(1)} % (${x.n_bets})`;
  console.log(
    `ROI ${market}: model ${f(sim.model.total)}, favourite ${f(sim.baselines.favourite.total)}, always-first ${f(sim.baselines.home.total)}; by region: ${sim.model.by_region.map((r) => `${r.region_name} ${f(r)}`).join(', ')}`,
  );
}
