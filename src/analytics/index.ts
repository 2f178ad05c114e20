// Analytics: data quality, drift, betting simulation, performance and their HTML reports, as stages the
// pipeline runs. Only what other folders use is exported; report components and charts stay inside.

export {
  type AnalystData,
  computeAnalystData,
  EXPORT_COLUMNS,
  EXPORT_DATASETS,
  type ExportDataset,
  exportRows,
} from './analyst-data.js';
export { loadAnalystSources, PublishedCache } from './analyst-sources.js';
export { type BacktestSummary, backtestSummary } from './backtest-summary.js';
export { assessDataQuality, type DataQualityReport } from './data-quality.js';
export { renderDataQualityReport } from './data-quality-html.js';
export { computeDrift, DEFAULT_DRIFT_THRESHOLDS } from './drift.js';
export { type DriftReport, driftNoScore } from './drift-report.js';
export { renderDriftReport } from './drift-report-html.js';
export { runDriftStage } from './drift-stage.js';
export {
  type ExplainInputs,
  explainServed,
  type ServedModel,
} from './explanation.js';
export { csvChunks, EXPORT_FORMATS, type ExportFormat, parquetChunks } from './export-encode.js';
export { pickGoalsOdds, roiMarketsCsv, runGoalsSimulateStage, twoWayCandidate } from './goals-simulation.js';
export type { AnalyticsDeps } from './io.js';
export { type JoinedMatch, performanceGroups } from './performance.js';
export {
  readServedLog,
  recordServedFromPublished,
  recordServedPredictions,
  servedBeforeKickoff,
} from './performance-served.js';
export { type PerformanceSummary, runPerformanceStage } from './performance-stage.js';
export { isReportFilename } from './report-names.js';
export { ROI_BY_REGION_COLUMNS, roiBaselinesCsv, roiByRegionCsv } from './roi-csv.js';
export { runSimulateStage } from './simulate-stage.js';
export { type BetCandidate, edgeStrategy, pickOdds, selectCandidates, simulateBets } from './simulation.js';
export {
  chiSquaredHomogeneity,
  jensenShannonDistance,
  ksPValue,
  ksStatistic,
  wasserstein1,
} from './stats.js';
