/**
 * Odds as observations over time: each is the price set of ONE market of one match, as one
 * source quoted it at one instant. Features and analytics read "the latest observation made at or
 * before a time" through {@link OddsTimeline} (odds-timeline.ts), never a later one.
 */

/** The markets ingest keeps: 1X2, over/under 2.5 goals, both teams to score. */
export const ODDS_MARKETS = ['1x2', 'ou25', 'btts'] as const;
export type OddsMarket = (typeof ODDS_MARKETS)[number];

/** The outcomes of each market, in the order of {@link OddsObservation.prices}. */
export const MARKET_OUTCOMES = {
  '1x2': ['home', 'draw', 'away'],
  ou25: ['over', 'under'],
  btts: ['yes', 'no'],
} as const satisfies Record<OddsMarket, readonly string[]>;

/** Where in the life of a market an observation sits: the first price, any in between, the last before kick-off. */
export const ODDS_KINDS = ['opening', 'intermediate', 'closing'] as const;
export type OddsKind = (typeof ODDS_KINDS)[number];

/** One market's decimal prices of one match at one instant. */
export interface OddsObservation {
  match_id: number;
  market: OddsMarket;
  kind: OddsKind;
  /** When the prices were observed (UTC). Never after kick-off: in-play prices are not kept. */
  observed_at: Date;
  /** Decimal prices in {@link MARKET_OUTCOMES} order; all present (an incomplete market is not an observation). */
  prices: readonly number[];
  /** e.g. `football-csv`, `football-data.co.uk:Avg`, `synthetic`, or the `source` column of an odds-only file. */
  source: string;
}

/**
 * How long before kick-off the OPENING prices of a results file (the shared football CSVs, the
 * football-data.co.uk files, the synthetic league) are taken to have been observed: 48 hours. The files
 * give no time; 48 h is late enough that lines of a round are up by then in ordinary practice, and early
 * enough that a team's previous match is nearly always played (31 of 74,673 consecutive-match gaps in the
 * shared data are shorter). Closing prices are stamped at kick-off. See docs/data.md.
 */
export const OPENING_LEAD_MS = 48 * 3_600_000;

/**
 * How long after kick-off a match's result is taken to be known (full time plus the time to publish
 * it): 2 hours, the replay feed's release time. Ratings, form and any label a model trains on use a
 * result only from this instant on; closing prices are known at kick-off.
 */
export const RESULT_LAG_MS = 2 * 3_600_000;

export function isOddsMarket(v: unknown): v is OddsMarket {
  return typeof v === 'string' && (ODDS_MARKETS as readonly string[]).includes(v);
}

export function isOddsKind(v: unknown): v is OddsKind {
  return typeof v === 'string' && (ODDS_KINDS as readonly string[]).includes(v);
}
