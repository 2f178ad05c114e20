/**
 * Shapes the UI reads from the API: type-only imports of the one declaration in src/schemas (the
 * TypeBox shapes the routes validate and document), so the UI and the OpenAPI description cannot
 * disagree (test/api/web-types.test.ts). Nothing of src/ reaches the bundle: these are types only.
 */
import type {
  BacktestSummary as BacktestSummaryShape,
  DriftSummary as DriftSummaryShape,
  Explanation as ExplanationShape,
  Health as HealthShape,
  LivePrediction as LivePredictionShape,
  MatchCard,
  MatchMarkets as MatchMarketsShape,
  ModelInfo as ModelInfoShape,
  PerformanceSummary as PerformanceSummaryShape,
  PromotionStatus as PromotionStatusShape,
  RegionRoi as RegionRoiShape,
  ReportEntry as ReportEntryShape,
  RoiBaseline as RoiBaselineShape,
  UiConfig as UiConfigShape,
} from '../../../src/schemas/index.js';

export type Outcome = 0 | 1 | 2;
export type Stage = 'champion' | 'challenger';

/** One entry of `GET /predict/cards/`. */
export type Card = MatchCard;
/** One entry of `GET /predict/region-roi/` (spec §2.6). */
export type RegionRoi = RegionRoiShape;
/** ROI of a baseline strategy in one region (from `/ui/data/roi-baselines.json`). */
export type RoiBaseline = RoiBaselineShape;
/** `GET /predict/{match_id}` (spec §2.3). */
export type LivePrediction = LivePredictionShape;
/** `GET /predict/model/info` (spec §2.7). */
export type ModelInfo = ModelInfoShape;
/** `GET /monitoring/drift` (spec §2.10). */
export type DriftSummary = DriftSummaryShape;
/** `GET /monitoring/reports` (spec §2.11). */
export type ReportEntry = ReportEntryShape;
/** `GET /ui/config.json`: settings the UI needs from the server. */
export type UiConfig = UiConfigShape;
/** `GET /predict/markets/{match_id}`: goals markets of one match. */
export type MatchMarkets = MatchMarketsShape;
/** `GET /monitoring/performance`: realised performance of what was served. */
export type PerformanceSummary = PerformanceSummaryShape;
/** `GET /monitoring/promotion`: the promotion guard's newest comparison. */
export type PromotionStatus = PromotionStatusShape;
/** `GET /monitoring/backtest`: the walk-forward figures of the published run. */
export type BacktestSummary = BacktestSummaryShape;
/** `GET /predict/explain/{match_id}`: the served prediction by feature group. */
export type Explanation = ExplanationShape;
/** `GET /healthcheck/`: liveness, and the service clock during a replay. */
export type Health = HealthShape;
