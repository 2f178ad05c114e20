// The API's shapes, declared once (TypeBox), for routes, serving, analytics and (type-only) the web UI.
// Only what other folders use is exported.
export { BacktestSummary, EXAMPLE_BACKTEST } from './backtest.js';
export { noBody, respond, route } from './common.js';
export { errorResponses } from './errors.js';
export { EXAMPLE_EXPLANATION, Explanation } from './explain.js';
export { EXAMPLE_EXPORT_CSV, ExportFile, ExportParams, ExportQuery } from './exports.js';
export { EXAMPLE_LIVESCORE, Livescore, LivescoresQuery } from './livescores.js';
export {
  EXAMPLE_LIVE_MARKETS,
  EXAMPLE_MARKET_ROI,
  EXAMPLE_MATCH_MARKETS,
  MarketRoiQuery,
  MarketRoiRow,
  MarketsQuery,
  MatchMarkets,
} from './markets.js';
export {
  DriftSummary,
  EXAMPLE_DRIFT,
  EXAMPLE_QUEUE_STATS,
  EXAMPLE_REPORT,
  EXAMPLE_TASK_STATUS,
  EXAMPLE_WORKER,
  FilenameParams,
  QueueStats,
  ReportEntry,
  TaskIdParams,
  TaskStatus,
  WorkerInfo,
} from './monitoring.js';
export { EXAMPLE_ODDS, OddsRecord } from './odds.js';
export {
  EXAMPLE_PERFORMANCE,
  EXAMPLE_PROMOTION,
  PerformanceSummary,
  PromotionStatus,
} from './performance.js';
export {
  AsyncAccepted,
  AsyncRequest,
  EXAMPLE_ASYNC_ACCEPTED,
  EXAMPLE_CARD,
  EXAMPLE_LIVE,
  EXAMPLE_MODEL_INFO,
  EXAMPLE_PRECOMPUTED,
  EXAMPLE_PREDICTION_ROW,
  LivePrediction,
  MatchCard,
  MatchIdParams,
  ModelInfo,
  PrecomputedPrediction,
  PredictionRow,
  StageQuery,
} from './predictions.js';
export { EXAMPLE_REGION_ROI, RegionRoi, ROI_BY_REGION_COLUMNS, RoiBaseline } from './roi.js';
export {
  EXAMPLE_HEALTH,
  EXAMPLE_LANDING,
  EXAMPLE_METRICS,
  EXAMPLE_NOT_READY,
  EXAMPLE_READY,
  Health,
  Landing,
  MetricsText,
  Readiness,
  UiConfig,
} from './service.js';
