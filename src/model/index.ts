export type { Design, OrderedCoef } from './classifiers.js';
export { oddsOf } from './evaluate.js';
export { type LbfgsOptions, minimizeLbfgs, type Objective } from './lbfgs.js';
export { accuracy, brier, computeMetrics, logLoss, type MetricSet, rocAucOvr, rps } from './metrics.js';
export {
  deserializeModel,
  MODEL_FORMAT_VERSION,
  type Model,
  type ModelFamily,
  predictProba,
  type ResolvedParams,
  recencyWeights,
  resolveParams,
  serializeModel,
  type TrainParams,
  trainModel,
} from './model.js';
export type { Preprocessor } from './preprocess.js';
export {
  type TrainAndValidateOptions,
  type TrainAndValidateResult,
  trainAndValidate,
} from './train-and-validate.js';
export {
  type BacktestFold,
  type BacktestPrediction,
  type WalkForwardOptions,
  type WalkForwardResult,
  walkForwardBacktest,
} from './walk-forward.js';
