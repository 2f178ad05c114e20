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

/** How long before kick-off a results file's undated opening prices are taken as observed (docs/data.md). */
export const OPENING_LEAD_MS = 48 * 3_600_000;

/** When after kick-off a result is known (the replay feed's release); ratings and labels use it from then. */
export const RESULT_LAG_MS = 2 * 3_600_000;

export function isOddsMarket(v: unknown): v is OddsMarket {
  return typeof v === 'string' && (ODDS_MARKETS as readonly string[]).includes(v);
}

export function isOddsKind(v: unknown): v is OddsKind {
  return typeof v === 'string' && (ODDS_KINDS as readonly string[]).includes(v);
}
