import type { DriftSummary, DriftThresholds } from './drift.js';

/** Everything the drift stage measured; rendered as HTML and summarised in drift_latest.json. */
export interface DriftReport {
  generated_at: string;
  as_of: string;
  /** Current window: matches kicking off in [start, as_of) plus every future one. */
  window: { start: string; end: string; days: number; includes_future: boolean };
  reference: {
    description: string;
    model_version: string | null;
    model_run_id: string | null;
    training_cutoff: string | null;
    n_rows: number;
  };
  current: { n_rows: number; n_finished: number; n_future: number };
  thresholds: DriftThresholds;
  /** Feature drift; its drift_score is the dataset drift score. */
  features: DriftSummary;
  /** Drift of the predicted probabilities (proba_home/draw/away); null without predictions. */
  predictions: DriftSummary | null;
  /** The model on finished matches of the window, beside its validation log loss. */
  performance: {
    n_matches: number;
    log_loss: number | null;
    accuracy: number | null;
    validation_log_loss: number | null;
  };
}

/** The figures of drift_latest.json (and of `GET /monitoring/drift`). */
export function driftLatest(
  r: DriftReport,
  files: { report: string; dataQuality: string; dataQualityStatus: string },
) {
  return {
    drift_score: r.features.drift_score,
    n_features: r.features.n_features,
    n_drifted: r.features.n_drifted,
    n_skipped: r.features.n_skipped,
    drifted_features: r.features.features.filter((f) => f.drifted).map((f) => f.feature),
    feature_scores: Object.fromEntries(r.features.features.map((f) => [f.feature, f.score])),
    features: r.features.features.map(({ histogram: _h, ...rest }) => rest),
    prediction_drift: r.predictions
      ? {
          drift_score: r.predictions.drift_score,
          n_drifted: r.predictions.n_drifted,
          scores: Object.fromEntries(r.predictions.features.map((f) => [f.feature, f.score])),
        }
      : null,
    performance: r.performance,
    window: r.window,
    reference: r.reference,
    current: r.current,
    thresholds: r.thresholds,
    generated_at: r.generated_at,
    as_of: r.as_of,
    report_filename: files.report,
    data_quality_filename: files.dataQuality,
    data_quality_status: files.dataQualityStatus,
  };
}

/** Why a drift summary has no score: no report in the published run, or a window with nothing to test. */
type DriftNoScoreReason = 'no_run' | 'empty_window' | 'too_few_values';

const day = (v: unknown) => (typeof v === 'string' ? v.slice(0, 10) : '?');
const count = (o: unknown, k: string): number | null => {
  const v = (o as Record<string, unknown> | undefined)?.[k];
  return typeof v === 'number' ? v : null;
};

/** Why published `drift_latest.json` (null: no run yet) has no `drift_score`; null when it has one. */
export function driftNoScore(
  latest: Record<string, unknown> | null,
): { reason: DriftNoScoreReason; detail: string } | null {
  if (!latest) {
    return {
      reason: 'no_run',
      detail:
        'No drift run yet: the published run has no drift report (the drift stage of `pipeline run` writes it).',
    };
  }
  if (typeof latest.drift_score === 'number') return null;
  const w = latest.window as Record<string, unknown> | undefined;
  const span = `${day(w?.start)} – ${day(w?.end)}`;
  const rows = count(latest.current, 'n_rows');
  const finished = count(latest.current, 'n_finished');
  if (rows === 0) {
    return {
      reason: 'empty_window',
      detail: `Empty window: no matches kick off in ${span}, so there is nothing to compare with the training rows.`,
    };
  }
  const min = count(latest.thresholds, 'minSamples');
  return {
    reason: 'too_few_values',
    detail: `Too few values in the window ${span}${rows === null ? '' : ` (${rows} matches, ${finished ?? '?'} finished)`}: every feature needs at least ${min ?? 'the minimum number of'} values in the window and in the reference to be tested.`,
  };
}
