import { KEYS, MatchcastError, type Probabilities, predictedClass } from '../domain/index.js';
import { MODEL_FEATURE_NAMES } from '../features/index.js';
import { readOddsFile } from '../ingest/index.js';
import { logLoss } from '../model/index.js';
import type { ModelVersion } from '../registry/index.js';
import type { ParquetRow } from '../storage/index.js';
import { assessDataQuality } from './data-quality.js';
import { renderDataQualityReport } from './data-quality-html.js';
import { computeDrift, DEFAULT_DRIFT_THRESHOLDS } from './drift.js';
import { type DriftReport, driftLatest } from './drift-report.js';
import { renderDriftReport } from './drift-report-html.js';
import {
  type AnalyticsDeps,
  asDate,
  matchesOf,
  numOrNull,
  putReport,
  readParquetObject,
  threeWay,
} from './io.js';
import { pruneReports, reportFilename } from './report-names.js';

interface DriftStageOptions {
  /** "Now" of the run. Default: the features file's `as_of`, else the current time. */
  asOf?: Date;
  /** Days of finished matches before as-of in the current window (plus every future match). Default `30`. */
  windowDays?: number;
  /** Earliest reference kick-off: skips the ratings' cold start (every rating still at its prior). */
  referenceFrom?: Date;
  /** HTML reports of each kind kept in the bucket; older ones are deleted after a run. Default `60`. */
  keepReports?: number;
  /** Generation time: report timestamps and `generated_at`. Default: now. */
  now?: Date;
}

const PROBA_COLUMNS = ['proba_home', 'proba_draw', 'proba_away'] as const;

/** The model whose training rows are the reference: the champion, else the newest version. */
async function referenceVersion(deps: AnalyticsDeps): Promise<ModelVersion | null> {
  const champion = await deps.registry.resolve('champion');
  if (champion) return champion;
  const all = await deps.registry.listVersions();
  if (!all.length) return null;
  const newest = all.reduce((a, b) => (Number(b.version) > Number(a.version) ? b : a));
  deps.log.warn(
    { stage: 'champion', version: newest.version },
    'drift: alias not assigned, using the newest model version',
  );
  return newest;
}

function byMatchId(rows: readonly ParquetRow[]): Map<number, ParquetRow> {
  const map = new Map<number, ParquetRow>();
  for (const r of rows) {
    const id = numOrNull(r.match_id);
    if (id !== null && !map.has(id)) map.set(id, r);
  }
  return map;
}

/** `pipeline drift`: drift against the training rows, window log loss, data quality; MC_ERR_NOT_FOUND. */
export async function runDriftStage(deps: AnalyticsDeps, opts: DriftStageOptions = {}) {
  const { store, log } = deps;
  const now = opts.now ?? new Date();
  const windowDays = opts.windowDays ?? 30;
  const thresholds = DEFAULT_DRIFT_THRESHOLDS;

  // The run's feature rows are the file's rows, already in memory.
  const features =
    (deps.loaded?.featureRows as readonly ParquetRow[] | undefined) ??
    (await readParquetObject(deps, 'features'));
  if (!features) {
    throw new MatchcastError(
      'MC_ERR_NOT_FOUND',
      'features/match_features.parquet not found: run `matchcast pipeline features` first',
    );
  }
  const version = await referenceVersion(deps);
  const featureNames = version?.feature_names?.length ? version.feature_names : [...MODEL_FEATURE_NAMES];

  const fileAsOf = features.reduce<Date | null>((a, r) => {
    const d = asDate(r.as_of);
    return d && (!a || d > a) ? d : a;
  }, null);
  const asOf = opts.asOf ?? fileAsOf ?? now;
  const windowStart = new Date(asOf.getTime() - windowDays * 86_400_000);
  const cutoff = version ? asDate(version.training_cutoff) : null;
  const refEnd = cutoff && cutoff < windowStart ? cutoff : windowStart;

  // Reference = the model's training rows (kick-off before its cutoff), never overlapping the window.
  const reference: ParquetRow[] = [];
  const current: ParquetRow[] = [];
  for (const r of features) {
    const start = asDate(r.start_time_utc);
    if (!start) continue;
    if (start >= windowStart) current.push(r);
    else if (start < refEnd && (!opts.referenceFrom || start >= opts.referenceFrom)) reference.push(r);
  }
  const isFuture = (r: ParquetRow) => r.is_future === true || (asDate(r.start_time_utc) ?? now) >= asOf;
  const nFuture = current.filter(isFuture).length;

  const featureDrift = computeDrift(reference, current, featureNames, thresholds);

  // Prediction drift: backtest (out-of-sample) probabilities on reference matches, else whatever the
  // predictions file holds for them, against the served predictions for the window.
  const backtest = byMatchId((await readParquetObject(deps, 'backtest')) ?? []);
  const predictionRows = (await readParquetObject(deps, 'predictions')) ?? [];
  const predictions = byMatchId(predictionRows);
  const refPreds = reference.flatMap<ParquetRow>((r) => {
    const id = numOrNull(r.match_id)!;
    return backtest.get(id) ?? predictions.get(id) ?? [];
  });
  const curPreds = current.flatMap<ParquetRow>((r) => predictions.get(numOrNull(r.match_id)!) ?? []);
  const predictionDrift =
    refPreds.length || curPreds.length ? computeDrift(refPreds, curPreds, PROBA_COLUMNS, thresholds) : null;

  // The model on finished matches of the window (labels are set only for matches finished before as-of).
  const scored = current.flatMap((r) => {
    const label = numOrNull(r.label);
    const p = threeWay(predictions.get(numOrNull(r.match_id)!), 'proba') as Probabilities | null;
    return label === null || !p ? [] : [{ p, label }];
  });
  const [n, probs, labels] = [scored.length, scored.map((s) => s.p), scored.map((s) => s.label)];

  const report: DriftReport = {
    generated_at: now.toISOString(),
    as_of: asOf.toISOString(),
    window: {
      start: windowStart.toISOString(),
      end: asOf.toISOString(),
      days: windowDays,
      includes_future: true,
    },
    reference: {
      description: version
        ? `training rows of model version ${version.version} (kick-off before its training cutoff${refEnd < (cutoff ?? refEnd) ? ', clipped at the window start' : ''})`
        : 'no model version registered: every row before the window',
      model_version: version?.version ?? null,
      model_run_id: version?.run_id ?? null,
      training_cutoff: cutoff ? cutoff.toISOString() : null,
      n_rows: reference.length,
    },
    current: { n_rows: current.length, n_finished: current.length - nFuture, n_future: nFuture },
    thresholds,
    features: featureDrift,
    predictions: predictionDrift,
    performance: {
      n_matches: n,
      log_loss: n ? logLoss(probs, labels) : null,
      accuracy: n ? scored.filter((s) => predictedClass(s.p) === s.label).length / n : null,
      validation_log_loss: typeof version?.metrics?.log_loss === 'number' ? version.metrics.log_loss : null,
    },
  };

  const dataQuality = assessDataQuality({
    asOf,
    now,
    matches: await matchesOf(deps),
    odds: await readOddsFile(store),
    featureRows: features,
    featureNames,
    referenceRows: reference,
    currentRows: current,
    predictionRows,
    windowStart,
  });

  const reportName = reportFilename('drift_report', now);
  const dqName = reportFilename('data_quality', now);
  const latest = driftLatest(report, {
    report: reportName,
    dataQuality: dqName,
    dataQualityStatus: dataQuality.status,
  });
  await putReport(store, reportName, renderDriftReport(report));
  await putReport(store, dqName, renderDataQualityReport(dataQuality));
  // Last, so that the summary never names a report that is not there yet.
  await putReport(store, KEYS.driftLatest.key, `${JSON.stringify(latest, null, 2)}\n`);

  const pruned = await pruneReports(deps.store, ['drift_report_', 'data_quality_'], opts.keepReports ?? 60);

  log.info(
    {
      stage: 'drift',
      pruned,
      drift_score: latest.drift_score,
      n_features: latest.n_features,
      n_drifted: latest.n_drifted,
      drifted: latest.drifted_features,
      reference_rows: reference.length,
      current_rows: current.length,
      window_log_loss: report.performance.log_loss,
      validation_log_loss: report.performance.validation_log_loss,
      data_quality: dataQuality.status,
      report: reportName,
    },
    'drift and data-quality reports written',
  );
  return { latest, report, dataQuality, keys: [reportName, dqName, KEYS.driftLatest.key] };
}
