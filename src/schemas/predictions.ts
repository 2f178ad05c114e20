import { type Static, Type } from 'typebox';
import {
  DateTime,
  Literals,
  Nullable,
  NullableInteger,
  NullableNumber,
  NullableString,
  Proba,
  Strict,
} from './common.js';

const OutcomeClass = Type.Enum([0, 1, 2], {
  description: '0 = home win, 1 = draw, 2 = away win',
});
const PredictedLabel = Type.String({ description: '`home_win`, `draw` or `away_win`' });
const ModelStage = Type.String({
  description:
    'what produced the row: `champion`, `backtest` (walk-forward, out of sample) or `fallback` (the market-free model, for a match without odds by its prediction time)',
});
const ModelRunId = Type.String({ description: 'registry run id, for lineage' });

const KickOff = DateTime('kick-off, ISO 8601 UTC');
const IsFuture = Type.Boolean({ description: 'true if the match has not started' });
const ComputedAt = DateTime('when the batch inference stage produced the predictions');
const OddsObservedAt = Nullable(
  DateTime(),
  'when the odds behind the market features were observed; null when the match had none',
);

/** The served probabilities and the class they predict, as every prediction row carries them. */
const PROBABILITIES = {
  proba_home: Proba('home win'),
  proba_draw: Proba('draw'),
  proba_away: Proba('away win'),
  predicted_class: OutcomeClass,
  predicted_label: PredictedLabel,
};

/** Path parameter `{match_id}`. */
export const MatchIdParams = Strict({
  match_id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'match id' }),
});

/** Query `?stage=` of the live routes (spec §4.8, §4.9). */
export const StageQuery = Strict({
  stage: Type.Optional(
    Type.String({ description: 'registry alias: `champion` (default) or `challenger`', maxLength: 64 }),
  ),
});

/** Spec §2.1: a row of the bulk read, camelCase display columns; nullability as the spec states it. */
export const PredictionRow = Strict({
  match_id: Type.Integer({ description: 'match identifier' }),
  homeTeamName: NullableString('home team'),
  awayTeamName: NullableString('away team'),
  startTimeUtc: KickOff,
  ...PROBABILITIES,
  is_future: Nullable(Type.Boolean(), 'true if the match has not started'),
  model_stage: Nullable(ModelStage, 'registry alias used'),
  model_run_id: Nullable(ModelRunId, 'registry run id, for lineage'),
  odds_observed_at: OddsObservedAt,
});
export type PredictionRow = Static<typeof PredictionRow>;

/** Spec §2.2 (snake_case). */
export const PrecomputedPrediction = Strict({
  match_id: Type.Integer(),
  ...PROBABILITIES,
  is_future: IsFuture,
  start_time_utc: KickOff,
  home_team_name: Type.String(),
  away_team_name: Type.String(),
  model_run_id: ModelRunId,
  model_stage: ModelStage,
  predictions_computed_at: ComputedAt,
  odds_observed_at: OddsObservedAt,
});
export type PrecomputedPrediction = Static<typeof PrecomputedPrediction>;

/** A card of `GET /predict/cards/` (spec §2.4): a validated predictions row (no nulls) with its odds. */
export const MatchCard = Strict({
  match_id: Type.Integer(),
  start_time_utc: KickOff,
  home_team_name: Type.String(),
  away_team_name: Type.String(),
  region_id: NullableInteger('region (country/competition area) id'),
  region_name: NullableString('region label'),
  tournament_name: NullableString('competition'),
  season: NullableString('season label, e.g. `2023-2024`'),
  status: Literals(['scheduled', 'finished'], {
    description: '`finished` when the final score is known; outcome fields are filled only then',
  }),
  is_future: IsFuture,
  ...PROBABILITIES,
  odd_home: NullableNumber(
    'decimal bookmaker odd for a home win (closing when known, else opening); null when unknown',
  ),
  odd_draw: NullableNumber('decimal bookmaker odd for a draw; null when unknown'),
  odd_away: NullableNumber('decimal bookmaker odd for an away win; null when unknown'),
  home_score: NullableInteger('final home goals; null unless finished'),
  away_score: NullableInteger('final away goals; null unless finished'),
  outcome: Nullable(OutcomeClass, 'actual outcome (0 home win, 1 draw, 2 away win); null unless finished'),
  outcome_label: NullableString('`home_win`, `draw` or `away_win`; null unless finished'),
  prediction_correct: Nullable(Type.Boolean(), 'predicted_class equals outcome; null unless finished'),
  bookmaker_url: Type.String({
    description:
      'link built from BOOKMAKER_URL_TEMPLATE ({match_id}, {home}, {away} substituted, URL-encoded)',
  }),
  model_stage: ModelStage,
  model_run_id: ModelRunId,
  predictions_computed_at: ComputedAt,
  odds_observed_at: Nullable(
    DateTime(),
    'when the prices the prediction used (`used_odd_*`) were observed; null when the match had none',
  ),
  // Goals markets, from the published run's markets file; null when it has no row for the match.
  expected_home_goals: NullableNumber('goals model: expected home goals; null without a markets row'),
  expected_away_goals: NullableNumber('goals model: expected away goals; null without a markets row'),
  proba_over_2_5: NullableNumber('goals model: probability of 3 or more goals; null without a markets row'),
  proba_btts_yes: NullableNumber('goals model: probability both teams score; null without a markets row'),
  odd_over_2_5: NullableNumber('decimal odd for over 2.5 goals behind the markets row; null when unknown'),
  odd_under_2_5: NullableNumber('decimal odd for under 2.5 goals; null when unknown'),
  odd_btts_yes: NullableNumber('decimal odd for both teams to score; null when unknown'),
  odd_btts_no: NullableNumber('decimal odd against both teams scoring; null when unknown'),
  edge_over_2_5: NullableNumber(
    'model edge `p × used_odd_over_2_5 − 1` (the price at the prediction time); null when unknown',
  ),
  edge_under_2_5: NullableNumber('model edge `(1 − p) × used_odd_under_2_5 − 1`; null when unknown'),
  edge_btts_yes: NullableNumber('model edge on both teams to score (yes); null when unknown'),
  edge_btts_no: NullableNumber('model edge on both teams to score (no); null when unknown'),
  top_score: NullableString('most likely score `home-away` of the score matrix; null without a markets row'),
  used_odd_home: NullableNumber(
    'the home-win price the served prediction used (observed at `odds_observed_at`); null when unknown',
  ),
  used_odd_draw: NullableNumber('the draw price the served prediction used; null when unknown'),
  used_odd_away: NullableNumber('the away-win price the served prediction used; null when unknown'),
  edge_home: NullableNumber(
    '`proba_home × used_odd_home − 1`: value only against a price that existed at the prediction time',
  ),
  edge_draw: NullableNumber('`proba_draw × used_odd_draw − 1`; null without a used price'),
  edge_away: NullableNumber('`proba_away × used_odd_away − 1`; null without a used price'),
  close_odd_home: NullableNumber('closing home-win price (after the prediction; never used for value)'),
  close_odd_draw: NullableNumber('closing draw price'),
  close_odd_away: NullableNumber('closing away-win price'),
  close_observed_at: Nullable(DateTime(), 'when the closing prices were observed'),
  used_odd_over_2_5: NullableNumber('over 2.5 price observed with the used 1X2 prices; null when unknown'),
  used_odd_under_2_5: NullableNumber('under 2.5 price observed with the used 1X2 prices'),
  used_odd_btts_yes: NullableNumber('BTTS yes price observed with the used 1X2 prices'),
  used_odd_btts_no: NullableNumber('BTTS no price observed with the used 1X2 prices'),
});
export type MatchCard = Static<typeof MatchCard>;

/** Spec §2.3 plus `model_stage` (spec §2.3 traceability rule). */
export const LivePrediction = Strict({
  match_id: Type.Integer(),
  predicted_class: OutcomeClass,
  probabilities: Strict({ home_win: Proba('home win'), draw: Proba('draw'), away_win: Proba('away win') }),
  model_version: Type.String({ description: '`<stage>/v<version>`, e.g. `champion/v3`' }),
  model_stage: Type.String({ description: 'registry alias that served the request' }),
  model_run_id: Type.String({ description: 'run id of the model that computed the probabilities' }),
  cached: Type.Boolean({ description: 'true when served from the prediction cache' }),
  prediction_source: Type.Optional(
    Literals(['model', 'walk_forward_backtest', 'market_free_fallback'], {
      description:
        "`walk_forward_backtest`: the match is predicted before the model training cut-off, so this is the out-of-sample walk-forward row (model_run_id = its fold). `market_free_fallback`: the match has no odds, so the market-free fallback model scored it (model_version and model_run_id are the fallback's)",
    }),
  ),
  training_cutoff: Type.Optional(
    Type.String({ description: 'training cut-off of the model behind the answer' }),
  ),
});
export type LivePrediction = Static<typeof LivePrediction>;

/** Spec §2.7. */
export const ModelInfo = Type.Object({
  model_name: Type.String(),
  stage: Type.String({ description: 'registry alias' }),
  version: Type.String(),
  run_id: Type.String(),
  metrics: Type.Record(Type.String(), Type.Number(), { description: 'name → value, e.g. `log_loss`' }),
  params: Type.Record(Type.String(), Type.String(), { description: 'name → value' }),
  feature_names: Type.Array(Type.String()),
  created_at: Type.String({ description: 'ISO 8601 without zone, UTC' }),
});
export type ModelInfo = Static<typeof ModelInfo>;

/** Body of `POST /predict/async/`. */
export const AsyncRequest = Strict({ ...MatchIdParams.properties, ...StageQuery.properties });

/** `202` of `POST /predict/async/`. */
export const AsyncAccepted = Type.Object({
  task_id: Type.String(),
  status: Type.Literal('pending'),
  status_url: Type.String({ description: 'where to poll: `/monitoring/task_status/{task_id}`' }),
});
export type AsyncAccepted = Static<typeof AsyncAccepted>;

export const EXAMPLE_PRECOMPUTED: PrecomputedPrediction = {
  match_id: 1234567,
  proba_home: 0.4812,
  proba_draw: 0.2675,
  proba_away: 0.2513,
  predicted_class: 0,
  predicted_label: 'home_win',
  is_future: true,
  start_time_utc: '2024-05-11T14:00:00.000Z',
  home_team_name: 'Arsenal',
  away_team_name: 'Chelsea',
  model_run_id: 'run-20240510-0007',
  model_stage: 'champion',
  predictions_computed_at: '2024-05-10T03:12:45.000Z',
  odds_observed_at: '2024-05-09T14:00:00.000Z',
};

export const EXAMPLE_PREDICTION_ROW: PredictionRow = {
  match_id: 1234567,
  homeTeamName: 'Arsenal',
  awayTeamName: 'Chelsea',
  startTimeUtc: '2024-05-11T14:00:00.000Z',
  proba_home: 0.4812,
  proba_draw: 0.2675,
  proba_away: 0.2513,
  predicted_class: 0,
  predicted_label: 'home_win',
  is_future: true,
  model_stage: 'champion',
  model_run_id: 'run-20240510-0007',
  odds_observed_at: '2024-05-09T14:00:00.000Z',
};

export const EXAMPLE_CARD: MatchCard = {
  match_id: 1234566,
  start_time_utc: '2024-05-04T16:30:00.000Z',
  home_team_name: 'Liverpool',
  away_team_name: 'Everton',
  region_id: 1,
  region_name: 'England',
  tournament_name: 'Premier League',
  season: '2023-2024',
  status: 'finished',
  is_future: false,
  proba_home: 0.6204,
  proba_draw: 0.2171,
  proba_away: 0.1625,
  predicted_class: 0,
  predicted_label: 'home_win',
  odd_home: 1.57,
  odd_draw: 4.2,
  odd_away: 5.75,
  home_score: 2,
  away_score: 0,
  outcome: 0,
  outcome_label: 'home_win',
  prediction_correct: true,
  bookmaker_url: 'https://www.oddsportal.com/search/Liverpool-Everton/',
  model_stage: 'champion',
  model_run_id: 'run-20240503-0004',
  predictions_computed_at: '2024-05-03T03:10:02.000Z',
  odds_observed_at: '2024-05-02T16:30:00.000Z',
  expected_home_goals: 1.92,
  expected_away_goals: 0.88,
  proba_over_2_5: 0.5305,
  proba_btts_yes: 0.5056,
  odd_over_2_5: 1.72,
  odd_under_2_5: 2.12,
  odd_btts_yes: 1.85,
  odd_btts_no: 1.95,
  edge_over_2_5: -0.0875,
  edge_under_2_5: -0.0047,
  edge_btts_yes: -0.0647,
  edge_btts_no: -0.0359,
  top_score: '2-0',
  used_odd_home: 1.62,
  used_odd_draw: 4.0,
  used_odd_away: 5.5,
  edge_home: 0.005,
  edge_draw: -0.1316,
  edge_away: -0.1063,
  close_odd_home: 1.57,
  close_odd_draw: 4.2,
  close_odd_away: 5.75,
  close_observed_at: '2024-05-04T16:30:00.000Z',
  used_odd_over_2_5: 1.75,
  used_odd_under_2_5: 2.08,
  used_odd_btts_yes: 1.83,
  used_odd_btts_no: 1.97,
};

export const EXAMPLE_LIVE: LivePrediction = {
  match_id: 1234567,
  predicted_class: 0,
  probabilities: { home_win: 0.4812, draw: 0.2675, away_win: 0.2513 },
  model_version: 'champion/v3',
  model_stage: 'champion',
  model_run_id: 'run-20240510-0007',
  cached: false,
};

export const EXAMPLE_MODEL_INFO: ModelInfo = {
  model_name: 'matchcast-outcome',
  stage: 'champion',
  version: '3',
  run_id: 'run-20240510-0007',
  metrics: { log_loss: 0.9785, roc_auc_ovr: 0.6712 },
  params: { l2: '0.003', family: 'multinomial_logit' },
  feature_names: ['elo_diff', 'mr_sup', 'home_form_5'],
  created_at: '2024-05-10T03:05:11',
};

export const EXAMPLE_ASYNC_ACCEPTED: AsyncAccepted = {
  task_id: '5b0e7c1d-2f44-4f3e-8f1a-0c9d7e6b5a42',
  status: 'pending',
  status_url: '/monitoring/task_status/5b0e7c1d-2f44-4f3e-8f1a-0c9d7e6b5a42',
};
