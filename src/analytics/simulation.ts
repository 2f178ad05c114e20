import type { OddsRecord, Outcome } from '../domain/index.js';
import { groupBy } from './io.js';

/** Odds taken: `closing` (default: the sharpest line, so the hardest edge to claim) or `opening`. */
export type OddsSource = 'closing' | 'opening';

/** A finished match (1X2) or two-way market the simulation may bet on: result, prediction and usable odds. */
export interface BetCandidate {
  match_id: number;
  region_id: number;
  region_name: string;
  season: string;
  outcome: Outcome;
  proba: readonly number[];
  odds: readonly number[];
}

/** A match with its result; null when it is not finished (as of the run): such matches are never bet. */
export type ResultInput = Omit<BetCandidate, 'outcome' | 'proba' | 'odds'> & { outcome: Outcome | null };

type PriceSide = 'home' | 'draw' | 'away' | 'over25' | 'under25' | 'btts_yes' | 'btts_no';

/** Closing takes `close_*`, else ingest's `odd_*`; opening takes `open_*`. Null unless all are > 1. */
export function pickPrices(
  rec: OddsRecord,
  sides: readonly PriceSide[],
  source: OddsSource,
): number[] | null {
  const prices = sides.map((s) =>
    source === 'opening' ? rec[`open_${s}`] : (rec[`close_${s}`] ?? rec[`odd_${s}`]),
  );
  return prices.every((x) => typeof x === 'number' && Number.isFinite(x) && x > 1)
    ? (prices as number[])
    : null;
}

/** The three 1X2 odds a bettor would have taken (see {@link pickPrices}). */
export function pickOdds(rec: OddsRecord, source: OddsSource): [number, number, number] | null {
  return pickPrices(rec, ['home', 'draw', 'away'], source) as [number, number, number] | null;
}

/** Joins out-of-sample predictions to results and odds; counts the dropped ones by reason. */
export function selectCandidates(
  predictions: readonly { match_id: number; proba_home: number; proba_draw: number; proba_away: number }[],
  results: ReadonlyMap<number, ResultInput>,
  odds: ReadonlyMap<number, OddsRecord>,
  source: OddsSource = 'closing',
) {
  const excluded = { no_match: 0, not_finished: 0, no_odds: 0, bad_probabilities: 0 };
  const candidates: BetCandidate[] = [];
  const seen = new Set<number>();
  for (const p of predictions) {
    // A match predicted by two folds would be bet twice; the first (earliest fold) row wins.
    if (seen.has(p.match_id)) continue;
    seen.add(p.match_id);
    const r = results.get(p.match_id);
    const proba = [p.proba_home, p.proba_draw, p.proba_away] as const;
    const rec = odds.get(p.match_id);
    const o = rec ? pickOdds(rec, source) : null;
    if (!r) excluded.no_match++;
    else if (r.outcome === null) excluded.not_finished++;
    else if (!proba.every((x) => Number.isFinite(x) && x >= 0 && x <= 1)) excluded.bad_probabilities++;
    else if (!o) excluded.no_odds++;
    else candidates.push({ ...r, outcome: r.outcome, proba, odds: o });
  }
  return { candidates, excluded };
}

/** The rules a strategy bets by, shared by the simulation reports and the analyst bets. */
export type BetStrategy = 'model' | 'favourite' | 'always_first';
export type StakingPlan = 'flat' | 'kelly';

/** Fractional Kelly on a fixed notional bankroll: no compounding, so each stake is recomputable alone. */
const KELLY = { fraction: 0.25, cap: 0.05, bankroll: 100 } as const;

/** The pick or null: `model` the largest edge above threshold, `favourite` the first lowest price. */
export function pickFor(
  strategy: BetStrategy,
  proba: readonly number[],
  prices: readonly number[],
  threshold: number,
): number | null {
  if (strategy === 'always_first') return 0;
  if (strategy === 'favourite') return prices.indexOf(Math.min(...prices));
  const edges = prices.map((o, k) => proba[k] * o - 1);
  const best = edges.indexOf(Math.max(...edges));
  return edges[best] > threshold ? best : null;
}

/** The bet `strategy` places under `staking`, settled against `winner`; null = no bet (Kelly with no edge). */
export function placeBet(
  strategy: BetStrategy,
  staking: StakingPlan,
  proba: readonly number[],
  prices: readonly number[],
  winner: number,
  threshold: number,
) {
  const k = pickFor(strategy, proba, prices, threshold);
  if (k === null) return null;
  const price = prices[k];
  const kelly = (proba[k] * price - 1) / (price - 1);
  const stake = staking === 'flat' ? 1 : Math.min(KELLY.cap, KELLY.fraction * kelly) * KELLY.bankroll;
  if (!(stake > 0)) return null;
  const won = k === winner;
  return { k, price, stake, won, profit: won ? stake * (price - 1) : -stake };
}

/** Aggregate of a group of bets. `roi_pct` and `hit_rate` are null when no bet was placed. */
export function summarise(bets: readonly { stake: number; won: boolean; profit: number }[]) {
  const staked = bets.reduce((s, b) => s + b.stake, 0);
  const profit = bets.reduce((s, b) => s + b.profit, 0);
  const won = bets.filter((b) => b.won).length;
  return {
    n_bets: bets.length,
    n_won: won,
    staked,
    profit,
    roi_pct: staked > 0 ? (profit / staked) * 100 : null,
    hit_rate: bets.length > 0 ? won / bets.length : null,
  };
}

interface SimulateOptions {
  /** Minimum edge `p × odd − 1` to bet; strictly greater than. Default `0.05` (EDGE_THRESHOLD). */
  edgeThreshold?: number;
  /** Every region in the data, so that one without a bet still gets a row. Default: the candidates'. */
  regions?: ReadonlyMap<number, string>;
}

function runStrategy(
  name: 'model' | 'favourite' | 'home',
  candidates: readonly BetCandidate[],
  regions: ReadonlyMap<number, string>,
  threshold: number,
) {
  const rule = name === 'home' ? 'always_first' : name;
  const bets = candidates.flatMap((c) => {
    const b = placeBet(rule, 'flat', c.proba, c.odds, c.outcome, threshold);
    if (!b) return [];
    const { match_id, region_id, region_name, season } = c;
    const { k: pick, price: odd, stake, won, profit } = b;
    return [{ match_id, region_id, region_name, season, pick, odd, stake, won, profit }];
  });
  const regionList = new Map(regions);
  for (const c of candidates) if (!regionList.has(c.region_id)) regionList.set(c.region_id, c.region_name);
  const byRegion = groupBy(bets, (b) => b.region_id);
  const by_region = [...regionList]
    .map(([region_id, region_name]) => ({
      region_id,
      region_name,
      ...summarise(byRegion.get(region_id) ?? []),
    }))
    .sort((a, b) => a.region_name.localeCompare(b.region_name) || a.region_id - b.region_id);

  // Seasons per region come from the candidates: a season with matches but no bet is listed with 0.
  const seasonOf = (x: { region_id: number; season: string }) => `${x.region_id}\u0000${x.season}`;
  const seasons = new Map(
    candidates.map((c) => [
      seasonOf(c),
      { region_id: c.region_id, region_name: c.region_name, season: c.season },
    ]),
  );
  const bySeason = groupBy(bets, seasonOf);
  const by_region_season = [...seasons]
    .map(([k, v]) => ({ ...v, ...summarise(bySeason.get(k) ?? []) }))
    .sort(
      (a, b) =>
        a.region_name.localeCompare(b.region_name) ||
        a.region_id - b.region_id ||
        a.season.localeCompare(b.season),
    );
  return { strategy: name, total: summarise(bets), by_region, by_region_season, bets };
}
export type StrategyResult = ReturnType<typeof runStrategy>;

/** Flat-stake simulation (pure); the baselines bet every candidate, so all three see the same matches. */
export function simulateBets(candidates: readonly BetCandidate[], options: SimulateOptions = {}) {
  const run = (name: 'model' | 'favourite' | 'home') =>
    runStrategy(name, candidates, options.regions ?? new Map(), options.edgeThreshold ?? 0.05);
  return {
    model: run('model'),
    baselines: { favourite: run('favourite'), home: run('home') },
    n_candidates: candidates.length,
  };
}
export type SimulationResult = ReturnType<typeof simulateBets>;
