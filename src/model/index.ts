export { bootstrapInterval } from './bootstrap.js';
export { explainModel } from './explain.js';
export {
  DEFAULT_FAMILY,
  isModelFamilyName,
  MODEL_FAMILY_NAMES,
  type ModelFamilyName,
} from './families/index.js';
export type { GoalsPrediction } from './family.js';
// Goals models: what other folders use, by name (internals stay in goals/index.ts for its tests).
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
