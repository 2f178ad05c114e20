/** Plausible decimal odds: ingest rejects a line outside these, the run gates refuse to publish. */
export const ODDS_BOUNDS = {
  min: 1.01,
  max: 1000,
  /** Below 0: a small arbitrage exists on exchanges. */
  overroundMin: -0.05,
  overroundMax: 0.5,
} as const;

/** Why one market's prices (every outcome) are not plausible, or null; one overround band for any book. */
export function oddsImplausibility(market: string, prices: readonly number[]): string | null {
  for (const p of prices) {
    if (!Number.isFinite(p)) return `${market} price ${p} is not a finite number`;
    if (p < ODDS_BOUNDS.min || p > ODDS_BOUNDS.max)
      return `${market} price ${p} is outside ${ODDS_BOUNDS.min}–${ODDS_BOUNDS.max}`;
  }
  let book = 0;
  for (const p of prices) book += 1 / p;
  const over = book - 1;
  if (over < ODDS_BOUNDS.overroundMin || over > ODDS_BOUNDS.overroundMax)
    return `${market} overround ${(over * 100).toFixed(1)} % is outside ${ODDS_BOUNDS.overroundMin * 100} %…${ODDS_BOUNDS.overroundMax * 100} %`;
  return null;
}
