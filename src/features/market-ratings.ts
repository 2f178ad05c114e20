/**
 * Market-implied team ratings: each team's strength as the CLOSING odds of its earlier matches priced
 * it. A match's closing odds are known once it has kicked off, so they feed the features of later
 * matches only — never of the match itself, nor of matches with the same kick-off.
 *
 * The de-margined closing odds of a kicked-off match give its supremacy s = log(p_home / p_away). The
 * rating's prediction for a match is ŝ = h_region + R_home − R_away; after the match the error
 * e = s − ŝ moves R_home by +η·e, R_away by −η·e and the region's home term h_region by +η_region·e.
 * Chosen on the tuning window 2019-07 → 2021-07 (docs/model-quality.md, "Tried: market-implied ratings").
 */

/** Parameters of the market-implied supremacy rating. */
export interface MarketRatingParams {
  /** Team step η (share of the closing-line surprise each team's rating absorbs). Default `0.35`. */
  eta: number;
  /** Step of a region's home term. Default `0.01`. */
  etaRegion: number;
  /** A region's home term before its first update (log-odds units, ≈ the long-run mean). Default `0.35`. */
  initialHome: number;
}

export const DEFAULT_MARKET_RATING: MarketRatingParams = { eta: 0.35, etaRegion: 0.01, initialHome: 0.35 };

/** Supremacy s = log(p_home / p_away) of de-margined probabilities. */
export function supremacy(p: readonly [number, number, number]): number {
  return Math.log(p[0] / p[2]);
}
