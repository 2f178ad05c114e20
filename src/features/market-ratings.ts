// Market-implied ratings: ŝ = h_region + R_home − R_away, moved by the error against the CLOSING odds of
// earlier matches only (known at kick-off): R_home += η·e, R_away −= η·e, h_region += η_region·e.

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
