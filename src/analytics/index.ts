export * from './data-quality.js';
export { renderDataQualityReport } from './data-quality-html.js';
export * from './drift.js';
export * from './drift-report.js';
export { renderDriftReport } from './drift-report-html.js';
export { type DriftStageOptions, type DriftStageResult, runDriftStage } from './drift-stage.js';
export { escapeHtml } from './html.js';
export type { AnalyticsDeps } from './io.js';
export * from './report-names.js';
export * from './roi-csv.js';
export {
  type RoiSummary,
  runSimulateStage,
  SIMULATION_KEYS,
  type SimulateStageOptions,
  type SimulateStageResult,
} from './simulate-stage.js';
export * from './simulation.js';
export {
  chiSquaredHomogeneity,
  jensenShannonDistance,
  ksPValue,
  ksStatistic,
  wasserstein1,
} from './stats.js';
export { histogramSvg } from './svg.js';
