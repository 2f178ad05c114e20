import { type Static, Type } from 'typebox';
import { DateTime, Literals, Nullable, NullableNumber, Proba, Strict } from './common.js';

/** Total-goals lines as object keys: `"0.5"` … `"4.5"`. */
const ByLine = (what: string) =>
  Type.Record(Type.String({ pattern: '^[0-9]+\\.5$' }), Type.Number({ minimum: 0, maximum: 1 }), {
    description: `${what}, keyed by the total-goals line ("0.5" … "4.5")`,
  });

/** One Asian handicap line from the home side's view (quarter lines = half stake on each neighbour). */
const AsianLine = Strict({
  line: Type.Number({ description: "home side's handicap, e.g. -0.5" }),
  home_win: Proba('home covers'),
  push: Proba('stake refunded'),
  home_lose: Proba('home fails to cover'),
  home_fair_odds: NullableNumber(
    'fair decimal odds of the home side, push refunded; null when it cannot win',
  ),
});

const TopScore = Strict({
  home: Type.Integer({ minimum: 0, description: 'home goals' }),
  away: Type.Integer({ minimum: 0, description: 'away goals' }),
  proba: Proba('this exact score'),
});

/** `GET /predict/markets/{match_id}`: every market from one Dixon–Coles score matrix, so they add up. */
export const MatchMarkets = Strict({
  match_id: Type.Integer({ description: 'match identifier' }),
  expected_home_goals: Type.Number({ minimum: 0, description: 'Poisson mean of home goals' }),
  expected_away_goals: Type.Number({ minimum: 0, description: 'Poisson mean of away goals' }),
  rho: Type.Number({ description: 'Dixon–Coles low-score dependence of the matrix' }),
  proba_home: Proba('home win (from the score matrix)'),
  proba_draw: Proba('draw'),
  proba_away: Proba('away win'),
  over: ByLine('P(total goals > line)'),
  under: ByLine('P(total goals < line) = 1 − over'),
  btts_yes: Proba('both teams score'),
  btts_no: Proba('at least one team does not score'),
  dnb_home: Proba('draw-no-bet home (home win given no draw)'),
  dnb_away: Proba('draw-no-bet away'),
  asian: Type.Array(AsianLine, { description: 'Asian handicap lines −2.5 … +2.5 (home view)' }),
  top_scores: Type.Array(TopScore, { description: 'most likely exact scores, most likely first' }),
  score_matrix: Type.Optional(
    Type.Array(Type.Array(Type.Number({ minimum: 0, maximum: 1 })), {
      description: 'only with `?matrix=true`: P(home = row, away = column), 11 × 11, sums to 1',
    }),
  ),
  model_stage: Type.String({
    description: '`champion` (the goals version) or `backtest` (walk-forward fold)',
  }),
  model_run_id: Type.String({ description: 'registry run id, for lineage' }),
  training_cutoff: DateTime('the model saw only matches that kicked off before this instant'),
  cached: Type.Optional(
    Type.Boolean({ description: 'only with `?live=true`: true when answered from the prediction cache' }),
  ),
  prediction_source: Type.Optional(
    Literals(['model', 'walk_forward_backtest'], {
      description:
        "only with `?live=true`: `model` (the goals champion scored the match) or `walk_forward_backtest` (the match kicked off before the champion's training cut-off: the served run's out-of-sample row)",
    }),
  ),
  model_version: Type.Optional(
    Type.String({
      description: 'only with `?live=true`: the goals champion behind the answer, `goals/v<version>`',
    }),
  ),
  prediction_time: Type.Optional(
    Nullable(
      Type.String({ format: 'date-time' }),
      'only with `?live=true`: the instant the match is predicted at; its own prices are those observed by then',
    ),
  ),
  odds: Type.Object(
    {
      over25: NullableNumber('decimal price of over 2.5'),
      under25: NullableNumber('decimal price of under 2.5'),
      btts_yes: NullableNumber('decimal price of both teams to score'),
      btts_no: NullableNumber('decimal price of not both teams to score'),
    },
    {
      additionalProperties: false,
      description:
        'bookmaker prices a user sees (closing when known, else opening); null when unknown. Edge = probability × price − 1',
    },
  ),
});
export type MatchMarkets = Static<typeof MatchMarkets>;

/** Query of the markets route. */
export const MarketsQuery = Strict({
  matrix: Type.Optional(Type.Boolean({ description: 'include the 11 × 11 score matrix. Default false' })),
  live: Type.Optional(
    Type.Boolean({
      description:
        'compute the markets now through the `ml` queue with the goals champion (cached per goals run and features run) instead of reading the precomputed file. Default false',
    }),
  ),
});

export const EXAMPLE_MATCH_MARKETS: MatchMarkets = {
  match_id: 35001,
  expected_home_goals: 1.52,
  expected_away_goals: 1.08,
  rho: -0.066,
  proba_home: 0.4641,
  proba_draw: 0.2712,
  proba_away: 0.2647,
  over: { '0.5': 0.9256, '1.5': 0.7323, '2.5': 0.4828, '3.5': 0.2633, '4.5': 0.1215 },
  under: { '0.5': 0.0744, '1.5': 0.2677, '2.5': 0.5172, '3.5': 0.7367, '4.5': 0.8785 },
  btts_yes: 0.5105,
  btts_no: 0.4895,
  dnb_home: 0.6368,
  dnb_away: 0.3632,
  asian: [{ line: -0.5, home_win: 0.4641, push: 0, home_lose: 0.5359, home_fair_odds: 2.1547 }],
  top_scores: [
    { home: 1, away: 1, proba: 0.1204 },
    { home: 1, away: 0, proba: 0.1092 },
  ],
  model_stage: 'champion',
  model_run_id: '0f8c1a2b3c4d5e6f708192a3b4c5d6e7',
  training_cutoff: '2023-06-04T18:45:00.001Z',
  odds: { over25: 2.02, under25: 1.84, btts_yes: 1.83, btts_no: 1.95 },
};

/** A `?live=true` answer: the same markets, plus where they came from. */
export const EXAMPLE_LIVE_MARKETS: MatchMarkets = {
  ...EXAMPLE_MATCH_MARKETS,
  cached: false,
  prediction_source: 'model',
  model_version: 'goals/v4',
  prediction_time: '2023-06-09T17:00:00.000Z',
};

/** Query of `GET /predict/region-roi/markets/`. */
export const MarketRoiQuery = Strict({
  market: Type.Optional(
    Literals(['ou25', 'btts'], {
      description: '`ou25` (over/under 2.5, default) or `btts` (both teams to score)',
    }),
  ),
  strategy: Type.Optional(
    Literals(['model', 'favourite', 'always_first'], {
      description:
        '`model` (edge rule, default), baselines `favourite` (lower price) or `always_first` (always over / yes)',
    }),
  ),
});

/** One region's flat-stake ROI in a goals market (the spec's §2.6 row plus `market`, `strategy`, `profit`). */
export const MarketRoiRow = Strict({
  market: Type.String({ description: '`ou25` or `btts`' }),
  strategy: Type.String({ description: '`model`, `favourite` or `always_first`' }),
  region_name: Type.String({ description: 'region, or `ALL` for the total' }),
  roi_pct: NullableNumber('profit / staked × 100; null without a bet'),
  n_bets: Type.Integer({ minimum: 0 }),
  hit_rate: NullableNumber('share of bets won; null without a bet'),
  profit: NullableNumber('net units'),
  region_id: Nullable(Type.Integer(), 'region id; null for ALL'),
});
export type MarketRoiRow = Static<typeof MarketRoiRow>;

export const EXAMPLE_MARKET_ROI: MarketRoiRow[] = [
  {
    market: 'ou25',
    strategy: 'model',
    region_name: 'ALL',
    roi_pct: -2.1,
    n_bets: 812,
    hit_rate: 0.47,
    profit: -17.1,
    region_id: null,
  },
  {
    market: 'ou25',
    strategy: 'model',
    region_name: 'england',
    roi_pct: 1.4,
    n_bets: 97,
    hit_rate: 0.51,
    profit: 1.36,
    region_id: 3,
  },
];
