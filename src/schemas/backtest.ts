import { type Static, Type } from 'typebox';
import { Literals, Nullable, Strict } from './common.js';

const N = (description: string) => Type.Number({ description });
const NN = (description: string) => Nullable(Type.Number(), description);
const Group = {
  season: Type.String({ description: 'a season label, or `all`' }),
  region_id: Nullable(Type.Integer(), 'null for all regions'),
  region_name: Type.String({ description: 'a region, or `all`' }),
};

const Comparison = Strict({
  horizon: Literals(['early', 'kickoff']),
  line: Literals(['opening', 'closing']),
  ...Group,
  n: Type.Integer({ description: 'finished matches with this horizon’s prediction and this line' }),
  first_kickoff: Nullable(Type.String()),
  last_kickoff: Nullable(Type.String()),
  model_log_loss: N('mean −ln p(outcome) of the model'),
  line_log_loss: N('the same for the de-margined line'),
  diff_log_loss: N('model − line (negative: the model beats the line)'),
  diff_log_loss_low: N('paired bootstrap interval, low end'),
  diff_log_loss_high: N('paired bootstrap interval, high end'),
  model_rps: N('ranked probability score of the model'),
  line_rps: N('ranked probability score of the line'),
  diff_rps: N('model − line'),
  diff_rps_low: N('paired bootstrap interval, low end'),
  diff_rps_high: N('paired bootstrap interval, high end'),
});

const BetRow = Strict({
  strategy: Type.String({ description: 'model | favourite | always_first' }),
  staking: Type.String({ description: 'flat | kelly' }),
  market: Type.String({ description: '1x2 | ou25 | btts' }),
  ...Group,
  n_bets: Type.Integer(),
  n_won: Type.Integer(),
  staked: N('units staked'),
  profit: N('units won minus units lost'),
  roi_pct: NN('profit / staked × 100'),
  hit_rate: NN('share of bets won'),
  max_drawdown: N('largest fall of cumulative profit from a previous peak, in units'),
  n_clv: Type.Integer({ description: 'bets with a closing line' }),
  clv_mean: NN('mean closing-line value: price taken × de-margined closing probability − 1'),
  clv_ci_low: NN('95 % interval of the CLV mean, low end'),
  clv_ci_high: NN('95 % interval of the CLV mean, high end'),
});

/** `GET /monitoring/backtest`: the walk-forward figures, each recomputable from the exports. */
export const BacktestSummary = Strict({
  available: Type.Boolean({ description: 'false while the published run has no backtest rows' }),
  run_id: Nullable(Type.String(), 'the published run the rows come from'),
  n_matches: Type.Integer({ description: 'rows of the backtest export' }),
  first_kickoff: Nullable(Type.String()),
  last_kickoff: Nullable(Type.String()),
  demargin: Type.Literal('power'),
  edge_threshold: N('the model strategy bets when p × price − 1 exceeds it'),
  bootstrap: Strict({ resamples: Type.Integer(), level: Type.Number(), seed: Type.Integer() }),
  comparisons: Type.Array(Comparison),
  reliability: Strict({
    horizon: Type.Literal('early'),
    n: Type.Integer({ description: 'finished matches (three probabilities each)' }),
    bins: Type.Array(
      Strict({
        lower: Type.Number(),
        upper: Type.Number(),
        n: Type.Integer(),
        mean_predicted: NN('mean predicted probability'),
        observed_frequency: NN('share that happened'),
      }),
    ),
  }),
  bets: Type.Array(BetRow),
  profit: Type.Array(
    Strict({
      strategy: Type.String(),
      staking: Type.String(),
      market: Type.String(),
      points: Type.Array(
        Strict({ week: Type.String(), n_bets: Type.Integer(), cumulative_profit: Type.Number() }),
      ),
    }),
  ),
});
export type BacktestSummary = Static<typeof BacktestSummary>;

export const EXAMPLE_BACKTEST: BacktestSummary = {
  available: true,
  run_id: '20261126T090503Z-a88f0b92',
  n_matches: 5625,
  first_kickoff: '2021-07-29T19:00:00.000Z',
  last_kickoff: '2023-07-26T19:30:00.000Z',
  demargin: 'power',
  edge_threshold: 0.05,
  bootstrap: { resamples: 500, level: 0.95, seed: 1 },
  comparisons: [
    {
      horizon: 'early',
      line: 'opening',
      season: 'all',
      region_id: null,
      region_name: 'all',
      n: 5600,
      first_kickoff: '2021-07-29T19:00:00.000Z',
      last_kickoff: '2023-07-26T19:30:00.000Z',
      model_log_loss: 0.9781,
      line_log_loss: 0.9787,
      diff_log_loss: -0.0006,
      diff_log_loss_low: -0.0026,
      diff_log_loss_high: 0.0013,
      model_rps: 0.1977,
      line_rps: 0.1979,
      diff_rps: -0.0002,
      diff_rps_low: -0.0007,
      diff_rps_high: 0.0003,
    },
  ],
  reliability: {
    horizon: 'early',
    n: 5600,
    bins: [{ lower: 0.4, upper: 0.5, n: 2100, mean_predicted: 0.448, observed_frequency: 0.452 }],
  },
  bets: [
    {
      strategy: 'model',
      staking: 'flat',
      market: '1x2',
      season: 'all',
      region_id: null,
      region_name: 'all',
      n_bets: 812,
      n_won: 250,
      staked: 812,
      profit: -21.4,
      roi_pct: -2.64,
      hit_rate: 0.308,
      max_drawdown: 48.2,
      n_clv: 805,
      clv_mean: 0.004,
      clv_ci_low: -0.006,
      clv_ci_high: 0.014,
    },
  ],
  profit: [
    {
      strategy: 'model',
      staking: 'flat',
      market: '1x2',
      points: [{ week: '2021-07-26', n_bets: 4, cumulative_profit: 1.3 }],
    },
  ],
};
