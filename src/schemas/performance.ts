import { type Static, Type } from 'typebox';
import { Nullable, Strict } from './common.js';

const N = (description: string) => Nullable(Type.Number(), description);

/** A market line on the matches that have it, beside the served probabilities on those matches. */
const LineComparison = Strict({
  n: Type.Integer({ description: 'matches of the group that have this line' }),
  model_log_loss: N('served probabilities on those matches'),
  line_log_loss: N('the de-margined line on those matches'),
  line_rps: N('ranked probability score of the line'),
  line_brier: N('multi-class Brier score of the line (0..2)'),
  edge_log_loss: N('line − served log loss: positive = the served probabilities beat the line'),
});

/** One decile of predicted probability (the three outcomes of each match pooled). */
const ReliabilityBin = Strict({
  lower: Type.Number(),
  upper: Type.Number(),
  n: Type.Integer({ description: 'predicted probabilities in the bin (3 per match)' }),
  mean_predicted: N('mean predicted probability in the bin'),
  observed_frequency: N('share of those outcomes that happened'),
});

/** The served probabilities and both lines over one calendar week (UTC, Monday first). */
const PeriodPoint = Strict({
  period_start: Type.String({ description: 'Monday 00:00 UTC, ISO 8601' }),
  n: Type.Integer(),
  log_loss: Type.Number(),
  n_opening: Type.Integer(),
  opening_log_loss: N('opening line'),
  model_on_opening_log_loss: N('served probabilities on the matches with an opening line'),
  n_closing: Type.Integer(),
  closing_log_loss: N('closing line'),
  model_on_closing_log_loss: N('served probabilities on the matches with a closing line'),
});

/** Realised figures of one region (or of all regions, `region_id` null, `region_name` `all`). */
const PerformanceGroup = Strict({
  region_id: Nullable(Type.Integer(), 'null for all regions together'),
  region_name: Type.String(),
  n: Type.Integer({ description: 'finished served matches in the window' }),
  log_loss: N('realised log loss over the window'),
  rps: N('ranked probability score'),
  brier: N('multi-class Brier score (0..2)'),
  accuracy: N('share of matches whose most probable outcome happened'),
  opening: LineComparison,
  closing: LineComparison,
  calibration_error: N('Σ n_b |mean predicted − observed| / Σ n_b over the deciles'),
  reliability: Type.Array(ReliabilityBin),
  first_kickoff: Nullable(Type.String()),
  last_kickoff: Nullable(Type.String()),
  series: Type.Array(PeriodPoint, { description: 'weekly figures over all history (for charts)' }),
});

/** `GET /monitoring/performance`: the figures of `reports/performance_latest.json` (docs/monitoring.md). */
export const PerformanceSummary = Strict({
  available: Type.Boolean({ description: 'false until the performance stage has run once' }),
  kind: Type.Literal('served', { description: 'predictions as served before kick-off' }),
  generated_at: Nullable(Type.String(), 'ISO 8601 UTC'),
  as_of: Nullable(Type.String(), '"now" of the computation (replay clock): results before it count'),
  window: Strict({
    matches: Type.Integer({ description: 'last N finished served matches per group; 0 = all' }),
    days: Type.Integer({ description: 'kick-offs within this many days of as_of; 0 = no limit' }),
  }),
  demargin: Type.String({ description: 'how the bookmaker margin is removed from the lines' }),
  n_served_finished: Type.Integer({ description: 'finished matches that were served a prediction' }),
  n_unserved_finished: Type.Integer({
    description: 'finished matches with no prediction served before kick-off',
  }),
  groups: Type.Array(PerformanceGroup, { description: 'all regions first, then each region' }),
  backtest: Nullable(
    Strict({
      kind: Type.Literal('backtest'),
      n: Type.Integer(),
      groups: Type.Array(PerformanceGroup),
    }),
    'walk-forward backtest rows: marked and never mixed with the served figures',
  ),
  results: Nullable(
    Strict({
      n_finished: Type.Integer(),
      last_result_kickoff: Nullable(Type.String()),
      last_new_result_at: Nullable(Type.String(), 'wall-clock time a new result was last seen'),
    }),
  ),
  report_filename: Nullable(Type.String(), 'the HTML report of this computation'),
});
export type PerformanceSummary = Static<typeof PerformanceSummary>;

const EXAMPLE_LINE = {
  n: 120,
  model_log_loss: 0.9731,
  line_log_loss: 0.9794,
  line_rps: 0.2011,
  line_brier: 0.5862,
  edge_log_loss: 0.0063,
};

export const EXAMPLE_PERFORMANCE: PerformanceSummary = {
  available: true,
  kind: 'served',
  generated_at: '2024-05-12T06:00:00.000Z',
  as_of: '2024-05-12T06:00:00.000Z',
  window: { matches: 300, days: 0 },
  demargin: 'power',
  n_served_finished: 120,
  n_unserved_finished: 0,
  groups: [
    {
      region_id: null,
      region_name: 'all',
      n: 120,
      log_loss: 0.9731,
      rps: 0.1995,
      brier: 0.5811,
      accuracy: 0.5083,
      opening: EXAMPLE_LINE,
      closing: { ...EXAMPLE_LINE, line_log_loss: 0.9702, edge_log_loss: -0.0029 },
      calibration_error: 0.0241,
      reliability: [{ lower: 0, upper: 0.1, n: 12, mean_predicted: 0.081, observed_frequency: 0.083 }],
      first_kickoff: '2024-02-03T15:00:00.000Z',
      last_kickoff: '2024-05-11T14:00:00.000Z',
      series: [
        {
          period_start: '2024-05-06T00:00:00.000Z',
          n: 10,
          log_loss: 0.95,
          n_opening: 10,
          opening_log_loss: 0.96,
          model_on_opening_log_loss: 0.95,
          n_closing: 10,
          closing_log_loss: 0.94,
          model_on_closing_log_loss: 0.95,
        },
      ],
    },
  ],
  backtest: null,
  results: {
    n_finished: 5120,
    last_result_kickoff: '2024-05-11T14:00:00.000Z',
    last_new_result_at: '2024-05-12T06:00:00.000Z',
  },
  report_filename: 'performance_report_20240512T060000Z.html',
};

const LineCheck = Nullable(
  Strict({
    n: Type.Integer({ description: 'validation matches with this line' }),
    model_log_loss: Type.Number({ description: 'the version on those matches' }),
    line_log_loss: Type.Number({ description: 'the de-margined line on those matches' }),
  }),
);

/** `GET /monitoring/promotion`: what the promotion guard decided for the newest version (docs/registry.md). */
export const PromotionStatus = Strict({
  available: Type.Boolean({ description: 'false until the promote stage has judged a version' }),
  aliases: Type.Record(Type.String(), Type.String(), { description: 'alias → version' }),
  comparison: Nullable(
    Strict({
      version: Type.String(),
      champion_version: Nullable(Type.String()),
      method: Type.String({ description: "how the champion's log loss on the window was obtained" }),
      validation_from: Nullable(Type.String()),
      validation_to: Nullable(Type.String()),
      new_log_loss: Nullable(Type.Number()),
      champion_log_loss: Nullable(Type.Number()),
      tolerance: Type.Number(),
      opening_margin: Type.Number(),
      opening: LineCheck,
      closing: LineCheck,
      champion_verdict: Type.String({ description: 'no-champion | beats | ties | worse | not-finite' }),
      opening_verdict: Type.String({ description: 'beats | worse | no-line | not-checked' }),
      promote: Type.Boolean(),
      reason: Type.String(),
      decided_at: Type.String(),
    }),
  ),
});
export type PromotionStatus = Static<typeof PromotionStatus>;

export const EXAMPLE_PROMOTION: PromotionStatus = {
  available: true,
  aliases: { champion: '3', candidate: '4' },
  comparison: {
    version: '4',
    champion_version: '3',
    method: 'same-window',
    validation_from: '2023-06-01T00:00:00.000Z',
    validation_to: '2024-06-01T00:00:00.000Z',
    new_log_loss: 0.9781,
    champion_log_loss: 0.9784,
    tolerance: 0.0005,
    opening_margin: 0,
    opening: { n: 3100, model_log_loss: 0.9779, line_log_loss: 0.9801 },
    closing: { n: 3100, model_log_loss: 0.9779, line_log_loss: 0.9756 },
    champion_verdict: 'beats',
    opening_verdict: 'beats',
    promote: true,
    reason:
      'log_loss 0.97810 beats champion 0.97840 (limit 0.97890); on 3100 matches with opening odds 0.97790 < opening line 0.98010',
    decided_at: '2024-06-01T06:00:00.000Z',
  },
};
