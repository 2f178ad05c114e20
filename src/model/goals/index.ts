// The goals families live with the 1X2 ones (model/families/, one list); re-exported here by their old names.

export { impliedMeans } from '../../features/index.js';
export { MIN_TRAIN_MATCHES } from '../families/dixon-coles-market.js';
export { DEFAULT_GOALS_FAMILY } from '../families/index.js';

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
  type TrainGoalsOptions,
  trainGoalsModel,
} from './goals-model.js';
export { marketsFromMatrix, TOTAL_LINES } from './markets.js';
export { MARKETS_COLUMNS, type MarketsRow } from './markets-file.js';
export { regionRhos } from './region-rho.js';
export { MATRIX_SIZE, scoreMatrix } from './score-matrix.js';
export {
  type GoalsBacktestResult,
  type GoalsMetrics,
  goalsMetrics,
  goalsWalkForward,
  type MarketLossRow,
  type Ou25Figures,
  ou25Figures,
} from './walk-forward.js';
