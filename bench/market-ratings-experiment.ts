/**
 * Experiments (docs/model-quality.md, "Tried: market-implied ratings"): market-implied team ratings
 * from the CLOSING odds of earlier matches, results relative to the closing-implied expectation,
 * region encodings and a multinomial + ordered-logit ensemble. Tuning window only by default.
 *
 *   node --import tsx bench/market-ratings-experiment.ts                  # tuning window 2019-07-01 → 2021-07-01
 *   node --import tsx bench/market-ratings-experiment.ts --only=base,mr.2  # a subset
 *   node --import tsx bench/market-ratings-experiment.ts --eval --only=…   # the one evaluation run
 *
 * Point in time: the extra columns of a match come from the state before its kick-off; a match's
 * closing odds (and result) update the state only after every match with the same kick-off has its
 * row, and only when it kicked off before `asOf`. Closing odds missing → no update (never invented).
 */
import type { Probabilities } from '../src/domain/index.js';
import { buildFeatureRows, type FeatureRow, MODEL_FEATURE_NAMES } from '../src/features/index.js';
import { computeMetrics, type TrainParams, walkForwardBacktest } from '../src/model/index.js';
import { loadFootballData } from './football-data.js';
import {
  DEFAULT_MARKET_RATING,
  type MarketRatingParams,
  type MarketRegionState,
  type MarketTeamState,
  marketRatingFeatures,
  marketRatingUpdate,
  newMarketRegion,
  newMarketTeam,
} from './market-ratings-model.js';

const EVAL = process.argv.includes('--eval');
const WIN = EVAL
  ? { from: new Date('2021-07-01T00:00:00Z'), to: new Date('2023-07-01T00:00:00Z') }
  : { from: new Date('2019-07-01T00:00:00Z'), to: new Date('2021-07-01T00:00:00Z') };
const { matches, odds } = loadFootballData();

type Extra = Record<string, number | null>;

/** Extra market-rating columns per match id, from `rows` (kick-off order) and their own odds columns. */
export function marketColumns(rows: readonly FeatureRow[], p: MarketRatingParams): Map<number, Extra> {
  const out = new Map<number, Extra>();
  const teams = new Map<string, MarketTeamState>();
  const regions = new Map<number, MarketRegionState>();
  const regionTeams = new Map<number, Set<string>>();
  const key = (reg: number, name: string) => `${reg}\u0000${name}`;
  const lowPrior = (reg: number): number | null => {
    const vals = [...(regionTeams.get(reg) ?? [])]
      .map((n) => teams.get(key(reg, n))!.r)
      .sort((a, b) => a - b);
    if (vals.length < 3) return null;
    return (vals[0] + vals[1] + vals[2]) / 3;
  };
  const team = (reg: number, name: string, isNew: boolean): MarketTeamState => {
    let t = teams.get(key(reg, name));
    if (!t || isNew) {
      const prior = isNew ? lowPrior(reg) : null;
      if (!t) {
        t = newMarketTeam(prior ?? 0);
        teams.set(key(reg, name), t);
      } else if (prior !== null) t.r = Math.min(t.r, prior);
    }
    let set = regionTeams.get(reg);
    if (!set) {
      set = new Set();
      regionTeams.set(reg, set);
    }
    set.add(name);
    return t;
  };
  const seenNew = new Set<string>();
  let i = 0;
  while (i < rows.length) {
    const t0 = rows[i].start_time_utc.getTime();
    let j = i;
    while (j < rows.length && rows[j].start_time_utc.getTime() === t0) j++;
    const group: Array<[FeatureRow, MarketRegionState, MarketTeamState, MarketTeamState]> = [];
    for (let g = i; g < j; g++) {
      const r = rows[g];
      let reg = regions.get(r.region_id);
      if (!reg) {
        reg = newMarketRegion();
        regions.set(r.region_id, reg);
      }
      // The promoted-team prior is applied once, at the team's first match of its new season.
      const newKey = (name: string) => `${r.region_id}\u0000${name}\u0000${r.season}`;
      const hNew = r.new_team_home === 1 && !seenNew.has(newKey(r.home_team_name));
      const aNew = r.new_team_away === 1 && !seenNew.has(newKey(r.away_team_name));
      if (hNew) seenNew.add(newKey(r.home_team_name));
      if (aNew) seenNew.add(newKey(r.away_team_name));
      const h = team(r.region_id, r.home_team_name, hNew);
      const a = team(r.region_id, r.away_team_name, aNew);
      const f = marketRatingFeatures(reg, h, a);
      const mktSup = r.mkt_logit_home_away;
      const mktDraw = r.mkt_logit_draw;
      out.set(r.match_id, {
        mr_sup: f.sup,
        mr_sup_gap: mktSup === null ? null : f.sup - mktSup,
        mr_draw: f.draw,
        mr_draw_gap: mktDraw === null ? null : f.draw - mktDraw,
        mr_n_min: Math.min(f.n_min, 20),
        mr_move_home: f.move_home,
        mr_move_away: f.move_away,
        mr_move_diff: f.move_home === null || f.move_away === null ? null : f.move_home - f.move_away,
        mr_resid_home: f.resid_home,
        mr_resid_away: f.resid_away,
        mr_resid_diff: f.resid_home === null || f.resid_away === null ? null : f.resid_home - f.resid_away,
      });
      group.push([r, reg, h, a]);
    }
    for (const [r, reg, h, a] of group) {
      if (r.is_future || r.odds_close_home === null) continue;
      const close = [r.odds_close_home, r.odds_close_draw, r.odds_close_away] as [number, number, number];
      const open =
        r.odds_open_home === null
          ? null
          : ([r.odds_open_home, r.odds_open_draw, r.odds_open_away] as [number, number, number]);
      marketRatingUpdate(reg, h, a, close, open, r.label, p);
    }
    i = j;
  }
  return out;
}

function augment(rows: FeatureRow[], extra: Map<number, Extra>): FeatureRow[] {
  return rows.map((r) => ({ ...r, ...extra.get(r.match_id) }) as FeatureRow);
}

const base = buildFeatureRows(matches, odds, WIN.to);
const regionIds = [...new Set(base.map((r) => r.region_id))].sort((a, b) => a - b);
for (const r of base) {
  const x = r as unknown as Record<string, number | null>;
  for (const k of regionIds) {
    x[`reg_${k}`] = r.region_id === k ? 1 : 0;
    x[`reg_${k}_x_sup`] = r.region_id === k ? r.mkt_logit_home_away : 0;
    x[`reg_${k}_x_draw`] = r.region_id === k ? r.mkt_logit_draw : 0;
  }
}
// "base" is the champion before the market-implied ratings: the adopted mr_* columns are left out here, and the variants
// below overwrite them with this script's own (experiment) computation.
const B = MODEL_FEATURE_NAMES.filter((n) => !n.startsWith('mr_')) as string[];
const SUP = ['mr_sup', 'mr_sup_gap'];
const DRAW = ['mr_draw', 'mr_draw_gap'];
const MOVE = ['mr_move_home', 'mr_move_away'];
const RESID = ['mr_resid_home', 'mr_resid_away'];
const REG = regionIds.slice(1).map((k) => `reg_${k}`);
const REGX = regionIds.flatMap((k) => [`reg_${k}_x_sup`, `reg_${k}_x_draw`]);

interface Variant {
  name: string;
  features: string[];
  mr?: Partial<MarketRatingParams>;
  params?: TrainParams;
  ensemble?: boolean;
}
const variants: Variant[] = [
  { name: 'base', features: B },
  { name: 'mr.1 sup', features: [...B, ...SUP], mr: { eta: 0.1 } },
  { name: 'mr.2 sup', features: [...B, ...SUP], mr: { eta: 0.2 } },
  { name: 'mr.35 sup', features: [...B, ...SUP], mr: { eta: 0.35 } },
  { name: 'mr.2 sup_gap', features: [...B, 'mr_sup_gap'], mr: { eta: 0.2 } },
  { name: 'mr.2 sup+draw', features: [...B, ...SUP, ...DRAW], mr: { eta: 0.2 } },
  { name: 'mr.2 sup+draw+n', features: [...B, ...SUP, ...DRAW, 'mr_n_min'], mr: { eta: 0.2 } },
  { name: 'move', features: [...B, ...MOVE] },
  { name: 'move diff', features: [...B, 'mr_move_diff'] },
  { name: 'resid10', features: [...B, ...RESID], mr: { residualWindow: 10 } },
  { name: 'resid30', features: [...B, ...RESID], mr: { residualWindow: 30 } },
  { name: 'region', features: [...B, ...REG] },
  { name: 'region+x', features: [...B, ...REG, ...REGX] },
  { name: 'ensemble mnl+ordered', features: B, ensemble: true },
  // Second round, after the first grid: η beyond 0.35 and combinations with the best single ideas.
  { name: 'mr.5 sup', features: [...B, ...SUP], mr: { eta: 0.5 } },
  { name: 'mr.7 sup', features: [...B, ...SUP], mr: { eta: 0.7 } },
  { name: 'mr.35 sup+draw', features: [...B, ...SUP, ...DRAW], mr: { eta: 0.35 } },
  { name: 'mr.35 sup+move', features: [...B, ...SUP, 'mr_move_diff'], mr: { eta: 0.35 } },
  { name: 'mr.35 sup+region+x', features: [...B, ...SUP, ...REG, ...REGX], mr: { eta: 0.35 } },
  { name: 'mr.35 sup+resid30', features: [...B, ...SUP, ...RESID], mr: { eta: 0.35, residualWindow: 30 } },
  {
    name: 'mr.35 sup+draw+move+resid30',
    features: [...B, ...SUP, ...DRAW, 'mr_move_diff', ...RESID],
    mr: { eta: 0.35, residualWindow: 30 },
  },
  { name: 'mr.35 sup only', features: [...B, 'mr_sup'], mr: { eta: 0.35 } },
  { name: 'mr.35 sup ensemble', features: [...B, ...SUP], mr: { eta: 0.35 }, ensemble: true },
];

// The adopted columns (src/features) must equal this script's computation at the adopted η.
{
  const mine = marketColumns(base, { ...DEFAULT_MARKET_RATING, eta: 0.35 });
  let maxDiff = 0;
  for (const r of base) {
    const x = mine.get(r.match_id)!;
    maxDiff = Math.max(maxDiff, Math.abs((r.mr_sup as number) - (x.mr_sup as number)));
    if ((r.mr_sup_gap === null) !== (x.mr_sup_gap === null)) maxDiff = Number.POSITIVE_INFINITY;
    else if (r.mr_sup_gap !== null)
      maxDiff = Math.max(maxDiff, Math.abs(r.mr_sup_gap - (x.mr_sup_gap as number)));
  }
  console.log(`adopted mr_sup / mr_sup_gap vs experiment (η = 0.35): max |diff| ${maxDiff.toExponential(2)}`);
}
const only = process.argv.find((a) => a.startsWith('--only='))?.slice(7);
const extraCache = new Map<string, FeatureRow[]>();
const rowsFor = (mr: Partial<MarketRatingParams> = {}): FeatureRow[] => {
  const p = { ...DEFAULT_MARKET_RATING, ...mr };
  const k = JSON.stringify(p);
  let rows = extraCache.get(k);
  if (!rows) {
    rows = augment(base, marketColumns(base, p));
    extraCache.set(k, rows);
  }
  return rows;
};
console.log(`window ${WIN.from.toISOString().slice(0, 10)} → ${WIN.to.toISOString().slice(0, 10)}`);
console.log(
  '| variant | log loss | RPS | n | open (power) log loss | open RPS | close log loss | close RPS |',
);
console.log('|---|---|---|---|---|---|---|---|');
for (const v of variants) {
  if (only && !only.split(',').includes(v.name)) continue;
  const rows = rowsFor(v.mr);
  const opts = { ...WIN, refitDays: 90, params: v.params ?? {}, featureNames: v.features };
  const r = walkForwardBacktest(rows, opts);
  const o = r.metrics.overall;
  let ll = o.both_model_log_loss;
  let rp = o.both_model_rps;
  if (v.ensemble) {
    const r2 = walkForwardBacktest(rows, { ...opts, family: 'ordered_logit' });
    const p2 = new Map(r2.predictions.map((q) => [q.match_id, q]));
    const byId = new Map(rows.map((x) => [x.match_id, x]));
    const ps: Probabilities[] = [];
    const ys: number[] = [];
    for (const q of r.predictions) {
      const row = byId.get(q.match_id)!;
      if (row.label === null || row.odds_open_home === null || row.odds_close_home === null) continue;
      const q2 = p2.get(q.match_id)!;
      ps.push([
        (q.proba_home + q2.proba_home) / 2,
        (q.proba_draw + q2.proba_draw) / 2,
        (q.proba_away + q2.proba_away) / 2,
      ]);
      ys.push(row.label);
    }
    const m = computeMetrics(ps, ys);
    ll = m.log_loss;
    rp = m.rps;
  }
  console.log(
    `| ${v.name} | ${ll.toFixed(5)} | ${rp.toFixed(5)} | ${o.open_n} | ${o.open_log_loss.toFixed(5)} | ${o.open_rps.toFixed(5)} | ${o.close_log_loss.toFixed(5)} | ${o.close_rps.toFixed(5)} |`,
  );
}
