// The goals families live with the 1X2 ones (model/families/, one list); re-exported here by their old names.

export { impliedMeans } from '../../features/index.js';
export {
  type DixonColesMarketState,
  dixonColesMarket,
  MIN_TRAIN_MATCHES,
} from '../families/dixon-coles-market.js';
export {
  DEFAULT_GOALS_FAMILY,
  GOALS_FAMILIES,
  type GoalsFamilyName,
  goalsFamily,
} from '../families/index.js';
export type { GoalsFamily, GoalsFitOptions, GoalsFitParams, GoalsPrediction } from '../family.js';
export {
  buildGoalInputs,
  DEFAULT_GOAL_RATING,
  GOAL_INPUTS_VERSION,
  type GoalInput,
  type GoalRatingParams,
  openingMeans,
  twoWay,
} from './goal-inputs.js';
export {
  deserializeGoalsModel,
  GOALS_FORMAT_VERSION,
  type GoalsModel,
  predictGoals,
  resolveGoalsParams,
  serializeGoalsModel,
  type TrainGoalsOptions,
  trainGoalsModel,
} from './goals-model.js';
export { ASIAN_LINES, type AsianLine, type GoalsMarkets, marketsFromMatrix, TOTAL_LINES } from './markets.js';
export { MARKETS_COLUMNS, type MarketsRow } from './markets-file.js';
export { dixonColesBtts, type RegionRhoRow, regionRhos } from './region-rho.js';
export { MATRIX_SIZE, MAX_GOALS, scoreMatrix } from './score-matrix.js';
export {
  type GoalsBacktestResult,
  type GoalsBacktestRow,
  type GoalsMetrics,
  goalsMetrics,
  goalsWalkForward,
  type LineFigures,
  type MarketLossRow,
  type Ou25Figures,
  ou25Figures,
  pairedBootstrap,
} from './walk-forward.js';
