import type { BacktestSummary } from '../schemas/index.js';
import type { AnalystRow } from './analyst-columns.js';
import { numOrNull } from './io.js';
import { edgePick, favouritePick } from './simulation.js';

/** Markets the bets are simulated on. */
const BET_MARKETS = ['1x2', 'ou25', 'btts'] as const;
type BetMarket = (typeof BET_MARKETS)[number];
const BET_STRATEGIES = ['model', 'favourite', 'always_first'] as const;
type BetStrategy = (typeof BET_STRATEGIES)[number];
const STAKING_PLANS = ['flat', 'kelly'] as const;
type StakingPlan = (typeof STAKING_PLANS)[number];

/**
 * Fractional Kelly: stake = min(cap, fraction × (p·o − 1)/(o − 1)) × bankroll, on a fixed notional
 * bankroll (no compounding, so every stake depends on its own bet only and can be recomputed row by row).
 */
const KELLY = { fraction: 0.25, cap: 0.05, bankroll: 100 } as const;

const SELECTIONS: Record<BetMarket, readonly string[]> = {
  '1x2': ['home', 'draw', 'away'],
  ou25: ['over', 'under'],
  btts: ['yes', 'no'],
};

/** One market of one match as the bettor sees it at the prediction time. */
interface Offer {
  market: BetMarket;
  row: AnalystRow;
  proba: number[];
  prices: number[];
  observedAt: Date | null;
  modelRunId: string | null;
  closePrices: (number | null)[];
  closeFair: (number | null)[];
  winner: number;
}

/** One simulated bet (a row of the `bets` dataset). */
export interface Bet {
  strategy: BetStrategy;
  staking: StakingPlan;
  market: BetMarket;
  match_id: number;
  start_time_utc: Date | null;
  region_id: number | null;
  region_name: string | null;
  season: string | null;
  selection: string;
  probability: number;
  model_run_id: string | null;
  prediction_time: Date | null;
  price_taken: number;
  price_observed_at: Date | null;
  edge: number;
  stake: number;
  won: boolean;
  profit: number;
  close_price: number | null;
  close_fair_probability: number | null;
  clv: number | null;
}

const date = (v: AnalystRow[string] | undefined): Date | null => (v instanceof Date ? v : null);
const usable = (xs: (number | null)[]): xs is number[] => xs.every((x) => x !== null && x > 1);

function offerOf(row: AnalystRow, market: BetMarket): Offer | null {
  const hs = numOrNull(row.home_score);
  const as = numOrNull(row.away_score);
  if (row.outcome === null || hs === null || as === null) return null;
  if (market === '1x2') {
    const proba = [
      numOrNull(row.early_proba_home),
      numOrNull(row.early_proba_draw),
      numOrNull(row.early_proba_away),
    ];
    const prices = [
      numOrNull(row.early_price_home),
      numOrNull(row.early_price_draw),
      numOrNull(row.early_price_away),
    ];
    if (proba.some((p) => p === null) || !usable(prices)) return null;
    return {
      market,
      row,
      proba: proba as number[],
      prices,
      observedAt: date(row.early_odds_observed_at),
      modelRunId: (row.early_model_run_id as string | null) ?? null,
      closePrices: [numOrNull(row.close_home), numOrNull(row.close_draw), numOrNull(row.close_away)],
      closeFair: [
        numOrNull(row.close_fair_home),
        numOrNull(row.close_fair_draw),
        numOrNull(row.close_fair_away),
      ],
      winner: row.outcome as number,
    };
  }
  const p = numOrNull(market === 'ou25' ? row.goals_proba_over25 : row.goals_proba_btts_yes);
  const prices =
    market === 'ou25'
      ? [numOrNull(row.early_over25), numOrNull(row.early_under25)]
      : [numOrNull(row.early_btts_yes), numOrNull(row.early_btts_no)];
  if (p === null || !usable(prices)) return null;
  const fair = numOrNull(market === 'ou25' ? row.close_fair_over25 : row.close_fair_btts_yes);
  const first = market === 'ou25' ? hs + as > 2.5 : hs > 0 && as > 0;
  return {
    market,
    row,
    proba: [p, 1 - p],
    prices,
    observedAt: date(market === 'ou25' ? row.early_ou25_observed_at : row.early_btts_observed_at),
    modelRunId: (row.goals_model_run_id as string | null) ?? null,
    closePrices:
      market === 'ou25'
        ? [numOrNull(row.close_over25), numOrNull(row.close_under25)]
        : [numOrNull(row.close_btts_yes), numOrNull(row.close_btts_no)],
    closeFair: fair === null ? [null, null] : [fair, 1 - fair],
    winner: first ? 0 : 1,
  };
}

function pick(o: Offer, strategy: BetStrategy, threshold: number): number | null {
  if (strategy === 'always_first') return 0;
  if (strategy === 'favourite') return favouritePick(o.prices);
  return edgePick(o.proba, o.prices, threshold);
}

/** Units staked on a bet at probability `p` and price `o`; 0 = no bet (Kelly with no edge). */
function stakeOf(plan: StakingPlan, p: number, o: number): number {
  if (plan === 'flat') return 1;
  const kelly = (p * o - 1) / (o - 1);
  if (!(kelly > 0)) return 0;
  return Math.min(KELLY.cap, KELLY.fraction * kelly) * KELLY.bankroll;
}

/**
 * Every simulated bet on the walk-forward rows (finished matches): per market, strategy and staking
 * plan, the price taken is the latest observed by the prediction time (never a later one), and the
 * closing-line value compares it with the de-margined closing line. Kick-off order.
 */
export function simulateAnalystBets(rows: readonly AnalystRow[], edgeThreshold: number): Bet[] {
  const out: Bet[] = [];
  for (const market of BET_MARKETS) {
    const offers = rows.map((r) => offerOf(r, market)).filter((o): o is Offer => o !== null);
    for (const strategy of BET_STRATEGIES) {
      for (const staking of STAKING_PLANS) {
        for (const o of offers) {
          const k = pick(o, strategy, edgeThreshold);
          if (k === null) continue;
          const price = o.prices[k];
          const p = o.proba[k];
          const stake = stakeOf(staking, p, price);
          if (stake <= 0) continue;
          const won = k === o.winner;
          const fair = o.closeFair[k];
          out.push({
            strategy,
            staking,
            market,
            match_id: Number(o.row.match_id),
            start_time_utc: date(o.row.start_time_utc),
            region_id: numOrNull(o.row.region_id),
            region_name: (o.row.region_name as string | null) ?? null,
            season: (o.row.season as string | null) ?? null,
            selection: SELECTIONS[market][k],
            probability: p,
            model_run_id: o.modelRunId,
            prediction_time: date(
              market === '1x2' ? o.row.early_prediction_time : o.row.goals_prediction_time,
            ),
            price_taken: price,
            price_observed_at: o.observedAt,
            edge: p * price - 1,
            stake,
            won,
            profit: won ? stake * (price - 1) : -stake,
            close_price: o.closePrices[k],
            close_fair_probability: fair,
            clv: fair === null ? null : price * fair - 1,
          });
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
  let staked = 0;
  let profit = 0;
  let won = 0;
  let peak = 0;
  let dd = 0;
  const clv: number[] = [];
  for (const b of bets) {
    staked += b.stake;
    profit += b.profit;
    if (b.won) won++;
    peak = Math.max(peak, profit);
    dd = Math.max(dd, peak - profit);
    if (b.clv !== null) clv.push(b.clv);
  }
  const n = clv.length;
  const mean = n > 0 ? clv.reduce((a, b) => a + b, 0) / n : null;
  let half: number | null = null;
  if (mean !== null && n > 1) {
    const v = clv.reduce((a, x) => a + (x - mean) ** 2, 0) / (n - 1);
    half = 1.96 * Math.sqrt(v / n);
  }
  return {
    n_bets: bets.length,
    n_won: won,
    staked,
    profit,
    roi_pct: staked > 0 ? (profit / staked) * 100 : null,
    hit_rate: bets.length > 0 ? won / bets.length : null,
    max_drawdown: dd,
    n_clv: n,
    clv_mean: mean,
    clv_ci_low: mean !== null && half !== null ? mean - half : null,
    clv_ci_high: mean !== null && half !== null ? mean + half : null,
  };
}
