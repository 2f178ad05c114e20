import type { OddsRecord, Outcome } from '../domain/index.js';

/**
 * Which pre-match odds a simulated bettor takes. `closing` (default) is the conservative convention:
 * the closing line is the sharpest price, so an edge against it is the hardest to claim; `opening`
 * prices are softer and flatter a model.
 */
export type OddsSource = 'closing' | 'opening';

/** An out-of-sample prediction (a walk-forward backtest row). */
export interface PredictionInput {
  match_id: number;
  proba_home: number;
  proba_draw: number;
  proba_away: number;
}

/** A finished match with its result. */
export interface ResultInput {
  match_id: number;
  region_id: number;
  region_name: string;
  season: string;
  /** Null when the match is not finished (as of the run); such matches are never bet. */
  outcome: Outcome | null;
}

/** One match the simulation may bet on: prediction, result and a full set of usable odds. */
export interface BetCandidate {
  match_id: number;
  region_id: number;
  region_name: string;
  season: string;
  outcome: Outcome;
  proba: readonly [number, number, number];
  odds: readonly [number, number, number];
}

type PriceSide = 'home' | 'draw' | 'away' | 'over25' | 'under25' | 'btts_yes' | 'btts_no';

/**
 * The prices a bettor would have taken. Closing: `close_*`, falling back to `odd_*` (which the
 * ingest fills with the closing odd when known, else the opening one). Opening: `open_*` only.
 * Null unless all are usable (> 1), so that every strategy bets on the same matches.
 */
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

/**
 * Joins out-of-sample predictions with results and odds; keeps finished matches with full odds only,
 * and counts the predictions dropped by reason (for the JSON summary).
 */
export function selectCandidates(
  predictions: readonly PredictionInput[],
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
    if (!r) {
      excluded.no_match++;
      continue;
    }
    if (r.outcome === null) {
      excluded.not_finished++;
      continue;
    }
    const proba = [p.proba_home, p.proba_draw, p.proba_away] as const;
    if (!proba.every((x) => Number.isFinite(x) && x >= 0 && x <= 1)) {
      excluded.bad_probabilities++;
      continue;
    }
    const rec = odds.get(p.match_id);
    const o = rec ? pickOdds(rec, source) : null;
    if (!o) {
      excluded.no_odds++;
      continue;
    }
    candidates.push({
      match_id: p.match_id,
      region_id: r.region_id,
      region_name: r.region_name,
      season: r.season,
      outcome: r.outcome,
      proba,
      odds: o,
    });
  }
  return { candidates, excluded };
}

/** A betting strategy: the outcome to back on a match, or null to pass. */
type Strategy = (c: BetCandidate) => Outcome | null;

/** The selection with the largest edge `p × price − 1`, if that edge exceeds the threshold. */
export function edgePick(
  proba: readonly number[],
  prices: readonly number[],
  threshold: number,
): number | null {
  let best = 0;
  let bestEdge = Number.NEGATIVE_INFINITY;
  for (let k = 0; k < prices.length; k++) {
    const e = proba[k] * prices[k] - 1;
    if (e > bestEdge) {
      bestEdge = e;
      best = k;
    }
  }
  return bestEdge > threshold ? best : null;
}

/** The bookmaker's favourite: the lowest price (ties go to the first). */
export function favouritePick(prices: readonly number[]): number {
  let best = 0;
  for (let k = 1; k < prices.length; k++) if (prices[k] < prices[best]) best = k;
  return best;
}

/** The model: back the outcome with the largest edge, if that edge exceeds the threshold. */
export function edgeStrategy(edgeThreshold: number): Strategy {
  return (c) => edgePick(c.proba, c.odds, edgeThreshold) as Outcome | null;
}

/** Baseline: always back the bookmaker's favourite. */
const favouriteStrategy: Strategy = (c) => favouritePick(c.odds) as Outcome;

/** Baseline: always back the home side. */
const homeStrategy: Strategy = () => 0;

interface PlacedBet extends Pick<BetCandidate, 'match_id' | 'region_id' | 'region_name' | 'season'> {
  pick: Outcome;
  odd: number;
  won: boolean;
  /** Net result of a 1-unit stake: odd − 1 when won, −1 when lost. */
  profit: number;
}

/** Aggregate of flat 1-unit bets. `roi_pct` and `hit_rate` are null when no bet was placed. */
interface BetSummary {
  n_bets: number;
  n_won: number;
  staked: number;
  profit: number;
  roi_pct: number | null;
  hit_rate: number | null;
}

export interface RegionRoi extends BetSummary {
  region_id: number;
  region_name: string;
}

export interface RegionSeasonRoi extends RegionRoi {
  season: string;
}

export interface StrategyResult {
  strategy: string;
  total: BetSummary;
  by_region: RegionRoi[];
  by_region_season: RegionSeasonRoi[];
  bets: PlacedBet[];
}

export interface SimulationResult {
  /** The model's edge strategy. */
  model: StrategyResult;
  /** Always back the favourite / always back home, on the same candidate matches. */
  baselines: { favourite: StrategyResult; home: StrategyResult };
  n_candidates: number;
}

interface SimulateOptions {
  /** Minimum edge `p × odd − 1` to bet; strictly greater than. Default `0.05` (EDGE_THRESHOLD). */
  edgeThreshold?: number;
  /**
   * Every region present in the data, so that regions without a bet still get a row (n_bets 0).
   * Default: the regions of the candidates only.
   */
  regions?: ReadonlyArray<{ region_id: number; region_name: string }>;
}

function summarise(bets: readonly PlacedBet[]): BetSummary {
  const n = bets.length;
  const won = bets.filter((b) => b.won).length;
  const profit = bets.reduce((s, b) => s + b.profit, 0);
  return {
    n_bets: n,
    n_won: won,
    staked: n,
    profit,
    roi_pct: n > 0 ? (profit / n) * 100 : null,
    hit_rate: n > 0 ? won / n : null,
  };
}

function runStrategy(
  name: string,
  strategy: Strategy,
  candidates: readonly BetCandidate[],
  regions: ReadonlyArray<{ region_id: number; region_name: string }>,
): StrategyResult {
  const bets: PlacedBet[] = [];
  for (const c of candidates) {
    const pick = strategy(c);
    if (pick === null) continue;
    const won = pick === c.outcome;
    const odd = c.odds[pick];
    bets.push({
      match_id: c.match_id,
      region_id: c.region_id,
      region_name: c.region_name,
      season: c.season,
      pick,
      odd,
      won,
      profit: won ? odd - 1 : -1,
    });
  }
  const regionList = new Map<number, string>();
  for (const r of regions) regionList.set(r.region_id, r.region_name);
  for (const c of candidates) if (!regionList.has(c.region_id)) regionList.set(c.region_id, c.region_name);
  const by_region: RegionRoi[] = [...regionList]
    .map(([region_id, region_name]) => ({
      region_id,
      region_name,
      ...summarise(bets.filter((b) => b.region_id === region_id)),
    }))
    .sort((a, b) => a.region_name.localeCompare(b.region_name) || a.region_id - b.region_id);

  // Seasons per region come from the candidates: a season with matches but no bet is listed with 0.
  const seasonKeys = new Map<string, { region_id: number; region_name: string; season: string }>();
  for (const c of candidates) {
    seasonKeys.set(`${c.region_id}\u0000${c.season}`, {
      region_id: c.region_id,
      region_name: c.region_name,
      season: c.season,
    });
  }
  const grouped = new Map<string, PlacedBet[]>();
  for (const b of bets) {
    const k = `${b.region_id}\u0000${b.season}`;
    const list = grouped.get(k) ?? [];
    list.push(b);
    grouped.set(k, list);
  }
  const by_region_season: RegionSeasonRoi[] = [...seasonKeys]
    .map(([k, v]) => ({ ...v, ...summarise(grouped.get(k) ?? []) }))
    .sort(
      (a, b) =>
        a.region_name.localeCompare(b.region_name) ||
        a.region_id - b.region_id ||
        a.season.localeCompare(b.season),
    );
  return { strategy: name, total: summarise(bets), by_region, by_region_season, bets };
}

/**
 * The betting simulation over already-selected candidates (pure). Flat 1-unit stakes;
 * ROI = profit / staked × 100. The model bets when its best edge exceeds the threshold; the two
 * baselines bet every candidate, so all three are measured on the same matches.
 */
export function simulateBets(
  candidates: readonly BetCandidate[],
  options: SimulateOptions = {},
): SimulationResult {
  const threshold = options.edgeThreshold ?? 0.05;
  const regions = options.regions ?? [];
  return {
    model: runStrategy('model', edgeStrategy(threshold), candidates, regions),
    baselines: {
      favourite: runStrategy('favourite', favouriteStrategy, candidates, regions),
      home: runStrategy('home', homeStrategy, candidates, regions),
    },
    n_candidates: candidates.length,
  };
}
