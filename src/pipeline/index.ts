// The offline pipeline: its stages, the run orchestration, the schedule and the first-start bootstrap.
// Only what other folders use is exported; the training windows and stage options stay inside.
export { readFeatureRows } from './artifacts.js';
export { bootstrapFirstRun, firstStartDone } from './bootstrap.js';
export { type PipelineDeps, STAGE_NAMES } from './deps.js';
export { evaluateGates } from './gates.js';
export { importLegacyMetadata } from './legacy-import.js';
export { openPipelineDeps } from './open-deps.js';
export { logProgress, type Progress, stderrTerminal } from './progress.js';
export { type RepredictCache, type RepredictResult, repredictMatches } from './repredict.js';
export { type AnalyticsStages, defaultAnalyticsStages, runPipeline } from './run.js';
export { nextRun, type PipelineSchedule, parseSchedule } from './schedule.js';
export { runBacktestStage } from './stage-backtest.js';
export { runFallbackStage } from './stage-fallback.js';
export { runFeaturesStage } from './stage-features.js';
export { goalsFingerprintCurrent, runGoalsStage } from './stage-goals.js';
export { runPredictStage } from './stage-predict.js';
export { runPromoteStage } from './stage-promote.js';
export { runTrainStage } from './stage-train.js';
