import type { BacktestSummary } from '../schemas/index.js';
import type { AnalystRow } from './analyst-columns.js';
import { numOrNull } from './io.js';
import { type BetStrategy, placeBet, type StakingPlan, summarise } from './simulation.js';

const BET_MARKETS = ['1x2', 'ou25', 'btts'] as const;
type BetMarket = (typeof BET_MARKETS)[number];
const BET_STRATEGIES: readonly BetStrategy[] = ['model', 'favourite', 'always_first'];
const STAKING_PLANS: readonly StakingPlan[] = ['flat', 'kelly'];

/** A two-way goals market's columns: `a` and `b` name the first (over/yes) and second prices. */
const twoWay = (market: string, a: string, b: string, selections: readonly string[]) => ({
  selections,
  proba: [`goals_proba_${a}`],
  prices: [`early_${a}`, `early_${b}`],
  close: [`close_${a}`, `close_${b}`],
  closeFair: [`close_fair_${a}`],
  observedAt: `early_${market}_observed_at`,
  model: { runId: 'goals_model_run_id', time: 'goals_prediction_time' },
});

/** Per market: the selections' names and the analyst columns an offer is read from. */
const MARKETS: Record<BetMarket, ReturnType<typeof twoWay>> = {
  '1x2': {
    selections: ['home', 'draw', 'away'],
    proba: ['early_proba_home', 'early_proba_draw', 'early_proba_away'],
    prices: ['early_price_home', 'early_price_draw', 'early_price_away'],
    close: ['close_home', 'close_draw', 'close_away'],
    closeFair: ['close_fair_home', 'close_fair_draw', 'close_fair_away'],
    observedAt: 'early_odds_observed_at',
    model: { runId: 'early_model_run_id', time: 'early_prediction_time' },
  },
  ou25: twoWay('ou25', 'over25', 'under25', ['over', 'under']),
  btts: twoWay('btts', 'btts_yes', 'btts_no', ['yes', 'no']),
};

const date = (v: AnalystRow[string] | undefined): Date | null => (v instanceof Date ? v : null);
const usable = (xs: (number | null)[]): xs is number[] => xs.every((x) => x !== null && x > 1);

/** One market of one match as the bettor sees it at the prediction time. */
function offerOf(row: AnalystRow, market: BetMarket) {
  const hs = numOrNull(row.home_score);
  const as = numOrNull(row.away_score);
  if (row.outcome === null || hs === null || as === null) return null;
  const m = MARKETS[market];
  const read = (cols: readonly string[]) => cols.map((c) => numOrNull(row[c]));
  // A two-way market's columns hold the first selection's probability only.
  const full = (xs: (number | null)[]) =>
    xs.length > 1 ? xs : xs[0] === null ? [null, null] : [xs[0], 1 - xs[0]];
  const proba = full(read(m.proba));
  const prices = read(m.prices);
  if (proba.some((p) => p === null) || !usable(prices)) return null;
  const firstWon = market === 'ou25' ? hs + as > 2.5 : hs > 0 && as > 0;
  return {
    row,
    proba: proba as number[],
    prices,
    observedAt: date(row[m.observedAt]),
    modelRunId: (row[m.model.runId] as string | null) ?? null,
    predictionTime: date(row[m.model.time]),
    closePrices: read(m.close),
    closeFair: full(read(m.closeFair)),
    winner: market === '1x2' ? (row.outcome as number) : firstWon ? 0 : 1,
  };
}

/** One row of the `bets` dataset: bet `b` (see {@link placeBet}) on offer `o`. */
function betOf(
  o: NonNullable<ReturnType<typeof offerOf>>,
  market: BetMarket,
  strategy: BetStrategy,
  staking: StakingPlan,
  b: NonNullable<ReturnType<typeof placeBet>>,
) {
  const p = o.proba[b.k];
  const fair = o.closeFair[b.k];
  return {
    strategy,
    staking,
    market,
    match_id: Number(o.row.match_id),
    start_time_utc: date(o.row.start_time_utc),
    region_id: numOrNull(o.row.region_id),
    region_name: (o.row.region_name as string | null) ?? null,
    season: (o.row.season as string | null) ?? null,
    selection: MARKETS[market].selections[b.k],
    probability: p,
    model_run_id: o.modelRunId,
    prediction_time: o.predictionTime,
    price_taken: b.price,
    price_observed_at: o.observedAt,
    edge: p * b.price - 1,
    stake: b.stake,
    won: b.won,
    profit: b.profit,
    close_price: o.closePrices[b.k],
    close_fair_probability: fair,
    clv: fair === null ? null : b.price * fair - 1,
  };
}
export type Bet = ReturnType<typeof betOf>;

/** Every bet per market, strategy and staking plan, at the latest price seen by the prediction time. */
export function simulateAnalystBets(rows: readonly AnalystRow[], edgeThreshold: number): Bet[] {
  const out: Bet[] = [];
  for (const market of BET_MARKETS) {
    const offers = rows.flatMap((r) => offerOf(r, market) ?? []);
    for (const strategy of BET_STRATEGIES) {
      for (const staking of STAKING_PLANS) {
        for (const o of offers) {
          const b = placeBet(strategy, staking, o.proba, o.prices, o.winner, edgeThreshold);
          if (b) out.push(betOf(o, market, strategy, staking, b));
        }
      }
    }
  }
  return out;
}

/** Aggregate of a group of bets (kick-off order assumed for the drawdown). */
type BetGroupSummary = Omit<
  BacktestSummary['bets'][number],
  'strategy' | 'staking' | 'market' | 'season' | 'region_id' | 'region_name'
>;

export function summariseBets(bets: readonly Bet[]): BetGroupSummary {
  let profit = 0;
  let peak = 0;
  let dd = 0;
  const clv: number[] = [];
  for (const b of bets) {
    profit += b.profit;
    peak = Math.max(peak, profit);
    dd = Math.max(dd, peak - profit);
    if (b.clv !== null) clv.push(b.clv);
  }
  const n = clv.length;
  const mean = n > 0 ? clv.reduce((a, b) => a + b, 0) / n : null;
  // Normal 95 % interval of the mean CLV (sample variance).
  const half =
    mean !== null && n > 1
      ? 1.96 * Math.sqrt(clv.reduce((a, x) => a + (x - mean) ** 2, 0) / (n - 1) / n)
      : null;
  return {
    ...summarise(bets),
    max_drawdown: dd,
    n_clv: n,
    clv_mean: mean,
    clv_ci_low: mean !== null && half !== null ? mean - half : null,
    clv_ci_high: mean !== null && half !== null ? mean + half : null,
  };
}
