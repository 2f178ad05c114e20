// The score matrix's size, for callers of scoreMatrix (it lives with the Poisson solver in features).
export { MATRIX_SIZE } from '../features/index.js';
export { bootstrapInterval } from './bootstrap.js';
export { explainModel } from './explain.js';
export { MIN_TRAIN_MATCHES } from './families/dixon-coles-market.js';
export {
  DEFAULT_FAMILY,
  isModelFamilyName,
  MODEL_FAMILY_NAMES,
  type ModelFamilyName,
} from './families/index.js';
export type { GoalsPrediction } from './family.js';
export {
  buildGoalInputs,
  GOAL_INPUTS_VERSION,
  type GoalInput,
  type GoalRatingParams,
  openingMeans,
} from './goals/goal-inputs.js';
export {
  deserializeGoalsModel,
  type GoalsModel,
  predictGoals,
  serializeGoalsModel,
  trainGoalsModel,
} from './goals/goals-model.js';
export { marketsFromMatrix } from './goals/markets.js';
export {
  MARKETS_COLUMNS,
  type MarketsRow,
  matchMarkets,
  parseMarketsRows,
  scoreMatrixRows,
} from './goals/markets-file.js';
export { scoreMatrix } from './goals/score-matrix.js';
export {
  type GoalsBacktestResult,
  type GoalsMetrics,
  goalsWalkForward,
  type Ou25Figures,
  ou25Figures,
} from './goals/walk-forward.js';
export { brier, logLoss, rps } from './metrics.js';
export {
  deserializeModel,
  MODEL_FORMAT_VERSION,
  type Model,
  predictProba,
  serializeModel,
  type TrainParams,
} from './model.js';
export { type TrainAndValidateResult, trainAndValidate } from './train-and-validate.js';
export { type WalkForwardResult, walkForwardBacktest } from './walk-forward.js';
