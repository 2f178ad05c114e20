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
export { computeAnalystDataOffThread, computeBacktestSummaryOffThread } from './analyst-off-thread.js';
export { loadAnalystSources, PublishedCache } from './analyst-sources.js';
export { backtestSummary } from './backtest-summary.js';
export { driftNoScore } from './drift-report.js';
export { runDriftStage } from './drift-stage.js';
export { type ExplainInputs, explainServed, type ServedModel } from './explanation.js';
export { csvChunks, EXPORT_FORMATS, type ExportFormat, parquetChunks } from './export-encode.js';
export { runGoalsSimulateStage } from './goals-simulation.js';
export { recordServedFromPublished, recordServedPredictions } from './performance-served.js';
export { runPerformanceStage } from './performance-stage.js';
export { isReportFilename } from './report-names.js';
export { runSimulateStage } from './simulate-stage.js';
