export { oddsOf } from './evaluate.js';
export {
  DEFAULT_FAMILY,
  FAMILIES,
  GOALS_FAMILIES,
  type GoalsFamilyName,
  goalsFamily,
  isModelFamilyName,
  MODEL_FAMILIES,
  MODEL_FAMILY_NAMES,
  type ModelFamilyName,
  modelFamily,
} from './families/index.js';
export type {
  Design,
  Family,
  FitData,
  FitParams,
  GoalsFamily,
  GoalsFitData,
  GoalsPrediction,
  ModelFamily,
} from './family.js';
// Goals models (issue 16): what other folders use, by name (internals stay in goals/index.ts for its tests).
export {
  buildGoalInputs,
  deserializeGoalsModel,
  GOAL_INPUTS_VERSION,
  type GoalInput,
  type GoalRatingParams,
  type GoalsBacktestResult,
  type GoalsMetrics,
  type GoalsModel,
  goalsWalkForward,
  MARKETS_COLUMNS,
  MATRIX_SIZE,
  type MarketsRow,
  MIN_TRAIN_MATCHES,
  marketsFromMatrix,
  type Ou25Figures,
  openingMeans,
  ou25Figures,
  predictGoals,
  scoreMatrix,
  serializeGoalsModel,
  trainGoalsModel,
} from './goals/index.js';
export { type LbfgsOptions, minimizeLbfgs, type Objective } from './lbfgs.js';
export { accuracy, brier, computeMetrics, logLoss, type MetricSet, rocAucOvr, rps } from './metrics.js';
export {
  deserializeModel,
  MODEL_FORMAT_VERSION,
  type Model,
  predictProba,
  type ResolvedParams,
  recencyWeights,
  resolveParams,
  serializeModel,
  type TrainParams,
  trainModel,
} from './model.js';
export type { Preprocessor } from './preprocess.js';
export {
  type TrainAndValidateOptions,
  type TrainAndValidateResult,
  trainAndValidate,
} from './train-and-validate.js';
export {
  type BacktestFold,
  type BacktestPrediction,
  type WalkForwardOptions,
  type WalkForwardResult,
  walkForwardBacktest,
} from './walk-forward.js';
