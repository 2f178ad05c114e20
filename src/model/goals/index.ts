// The goals families live with the 1X2 ones (model/families/, one list); re-exported here by their old names.

export { MIN_TRAIN_MATCHES } from '../families/dixon-coles-market.js';

export {
  buildGoalInputs,
  GOAL_INPUTS_VERSION,
  type GoalInput,
  type GoalRatingParams,
  openingMeans,
} from './goal-inputs.js';
export {
  deserializeGoalsModel,
  type GoalsModel,
  predictGoals,
  serializeGoalsModel,
  trainGoalsModel,
} from './goals-model.js';
export { marketsFromMatrix } from './markets.js';
export { MARKETS_COLUMNS, type MarketsRow } from './markets-file.js';
export { MATRIX_SIZE, scoreMatrix } from './score-matrix.js';
export {
  type GoalsBacktestResult,
  type GoalsMetrics,
  goalsWalkForward,
  type Ou25Figures,
  ou25Figures,
} from './walk-forward.js';
