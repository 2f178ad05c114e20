/**
 * EXPERIMENT version (bench/market-ratings-experiment.ts) of the market-implied ratings, with the
 * variants that were tried and not adopted (draw propensity, line move, results vs market). The
 * adopted supremacy rating lives in src/features/market-ratings.ts and build-feature-rows.ts.
 *
 * Market-implied team ratings: each team's strength as the CLOSING odds of its earlier matches saw
 * it. Closing odds of a match are known once it has kicked off, so they may feed the features of
 * later matches, never of the match itself (nor of matches with the same kick-off).
 *
 * Supremacy model: the de-margined closing odds give s = log(p_home / p_away); the prediction is
 * ŝ = h_region + R_home − R_away, and after the match (when its closing odds exist) the error
 * e = s − ŝ moves R_home by +η·e, R_away by −η·e and h_region by +η_h·e.
 *
 * Draw model: the closing draw logit d is predicted as d̂ = c_region + b_region·|ŝ| + D_home + D_away;
 * the error moves c and b by η_h (stochastic gradient), D_home and D_away by η_d.
 */

/** Parameters of the market-implied ratings. */
export interface MarketRatingParams {
  /** Team supremacy step η. Default `0.2`. */
  eta: number;
  /** Region home-advantage / draw-baseline step η_h. Default `0.01`. */
  etaRegion: number;
  /** Team draw-propensity step η_d. Default `0.05`. */
  etaDraw: number;
  /** Matches in the results-vs-market window. Default `10`. */
  residualWindow: number;
  /** Decay of the line-movement average (weight of the newest match). Default `0.1`. */
  moveRate: number;
}

export const DEFAULT_MARKET_RATING: MarketRatingParams = {
  eta: 0.2,
  etaRegion: 0.01,
  etaDraw: 0.05,
  residualWindow: 10,
  moveRate: 0.1,
};

/** Per-team market state. */
export interface MarketTeamState {
  /** Supremacy rating (log-odds units). */
  r: number;
  /** Draw propensity (draw-logit units). */
  d: number;
  /** Matches whose closing odds updated this team. */
  n: number;
  /** Exponential average of the closing-minus-opening supremacy move, from this team's side. */
  move: number | null;
  /** Points minus closing-implied expected points, newest last. */
  residuals: number[];
}

/** Per-region market state. */
export interface MarketRegionState {
  h: number;
  c: number;
  b: number;
  n: number;
}

export function newMarketTeam(r = 0): MarketTeamState {
  return { r, d: 0, n: 0, move: null, residuals: [] };
}

export function newMarketRegion(): MarketRegionState {
  // Long-run means across these leagues: home log-odds ratio ≈ 0.35, draw logit ≈ −1.0.
  return { h: 0.35, c: -0.9, b: -0.25, n: 0 };
}

/** Features of one match from the state before its kick-off. */
export interface MarketRatingFeatures {
  sup: number;
  draw: number;
  n_min: number;
  move_home: number | null;
  move_away: number | null;
  resid_home: number | null;
  resid_away: number | null;
}

export function marketRatingFeatures(
  reg: MarketRegionState,
  h: MarketTeamState,
  a: MarketTeamState,
): MarketRatingFeatures {
  const sup = reg.h + h.r - a.r;
  return {
    sup,
    draw: reg.c + reg.b * Math.abs(sup) + h.d + a.d,
    n_min: Math.min(h.n, a.n),
    move_home: h.move,
    move_away: a.move,
    resid_home: mean(h.residuals),
    resid_away: mean(a.residuals),
  };
}

/**
 * Updates the state with a kicked-off match's de-margined closing probabilities (`close`), its
 * de-margined opening probabilities (`open`, for the line move; may be null) and its outcome
 * (0 home, 1 draw, 2 away; null when not known — then only the ratings move).
 */
export function marketRatingUpdate(
  reg: MarketRegionState,
  h: MarketTeamState,
  a: MarketTeamState,
  close: readonly [number, number, number],
  open: readonly [number, number, number] | null,
  outcome: number | null,
  p: MarketRatingParams,
): void {
  const s = Math.log(close[0] / close[2]);
  const dl = Math.log(close[1] / (1 - close[1]));
  const sHat = reg.h + h.r - a.r;
  const e = s - sHat;
  const abs = Math.abs(sHat);
  const dHat = reg.c + reg.b * abs + h.d + a.d;
  const ed = dl - dHat;
  h.r += p.eta * e;
  a.r -= p.eta * e;
  reg.h += p.etaRegion * e;
  h.d += p.etaDraw * ed;
  a.d += p.etaDraw * ed;
  reg.c += p.etaRegion * ed;
  reg.b += p.etaRegion * ed * abs;
  h.n++;
  a.n++;
  reg.n++;
  if (open) {
    const mv = s - Math.log(open[0] / open[2]);
    h.move = h.move === null ? mv : h.move + p.moveRate * (mv - h.move);
    a.move = a.move === null ? -mv : a.move + p.moveRate * (-mv - a.move);
  }
  if (outcome !== null) {
    const xh = 3 * close[0] + close[1];
    const xa = 3 * close[2] + close[1];
    const ph = outcome === 0 ? 3 : outcome === 1 ? 1 : 0;
    const pa = outcome === 2 ? 3 : outcome === 1 ? 1 : 0;
    push(h.residuals, ph - xh, p.residualWindow);
    push(a.residuals, pa - xa, p.residualWindow);
  }
}

function push(list: number[], v: number, n: number): void {
  list.push(v);
  if (list.length > n) list.shift();
}

function mean(list: readonly number[]): number | null {
  if (list.length === 0) return null;
  let s = 0;
  for (const v of list) s += v;
  return s / list.length;
}
