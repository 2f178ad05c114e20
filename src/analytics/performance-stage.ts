import { MatchesRepository } from '../db/index.js';
import { KEYS, type Match, type OddsRecord } from '../domain/index.js';
import { readOddsFile } from '../ingest/index.js';
import type { ArtifactSource } from '../runs/index.js';
import type { PerformanceSummary as Served } from '../schemas/index.js';
import type { ObjectStore } from '../storage/index.js';
import { type AnalyticsDeps, outcomeOf, putReport, readParquetObject } from './io.js';
import {
  type JoinedMatch,
  joinServedResults,
  type PerformanceWindow,
  performanceGroups,
} from './performance.js';
import { renderPerformanceReport } from './performance-html.js';
import { readServedLog, toPublishedPrediction } from './performance-served.js';
import { pruneReports, reportFilename } from './report-names.js';

interface PerformanceStageOptions {
  /** "Now": only matches kicking off before it have a result (the replay clock's now). Default now. */
  asOf?: Date;
  /** Generation time (wall clock): report name, `generated_at`, `last_new_result_at`. Default now. */
  now?: Date;
}

/** What `reports/performance_latest.json` holds: `GET /monitoring/performance` less `available`. */
export type PerformanceSummary = Omit<Served, 'available' | 'generated_at' | 'as_of' | 'results'> & {
  generated_at: string;
  as_of: string;
  results: NonNullable<Served['results']>;
};

async function previousSummary(store: ObjectStore): Promise<PerformanceSummary | null> {
  const obj = await store.get(KEYS.performanceLatest.bucket, KEYS.performanceLatest.key);
  try {
    const parsed: unknown = obj && JSON.parse(obj.body.toString('utf8'));
    return parsed && typeof parsed === 'object' ? (parsed as PerformanceSummary) : null;
  } catch {
    return null;
  }
}

/** Backtest rows of the predictions file joined to results and lines (kept apart from served rows). */
async function backtestRows(
  src: ArtifactSource,
  matches: readonly Match[],
  asOf: Date,
  odds: readonly OddsRecord[],
): Promise<JoinedMatch[]> {
  const rows = (await readParquetObject(src, 'predictions')) ?? [];
  const pseudoServed = rows.flatMap((r) => {
    const p = r.model_stage === 'backtest' ? toPublishedPrediction(r) : null;
    // A fold predicts a match out of sample; for the join it counts as "known before kick-off".
    return p ? [{ ...p, served_at: new Date(p.start_time_utc.getTime() - 1) }] : [];
  });
  return joinServedResults(pseudoServed, matches, odds, asOf).joined;
}

/** `pipeline performance`: served predictions against results and lines; the summary JSON is written last. */
export async function runPerformanceStage(
  deps: Pick<AnalyticsDeps, 'config' | 'db' | 'store' | 'log'>,
  opts: PerformanceStageOptions = {},
): Promise<PerformanceSummary> {
  const { store } = deps;
  const now = opts.now ?? new Date();
  const asOf = opts.asOf ?? now;
  const window: PerformanceWindow = {
    matches: deps.config.performanceWindowMatches,
    days: deps.config.performanceWindowDays,
  };
  const [served, matches, odds, prev] = await Promise.all([
    readServedLog(store),
    // Read now, not the run's copy: results stored while the run went on belong in this report.
    new MatchesRepository(deps.db).allMatches(),
    readOddsFile(store),
    previousSummary(store),
  ]);
  const { joined, unserved } = joinServedResults(served, matches, odds, asOf);
  const bt = await backtestRows(deps, matches, asOf, odds);

  const finished = matches.filter((m) => outcomeOf(m) !== null && m.startTimeUtc < asOf);
  const nFinished = finished.length;
  const lastKickoff = finished.reduce<Date | null>(
    (a, m) => (!a || m.startTimeUtc > a ? m.startTimeUtc : a),
    null,
  );
  // Unchanged since the previous summary: the last new result is still the one it recorded.
  const kept = prev?.results?.n_finished === nFinished ? prev.results.last_new_result_at : null;
  const lastNewResultAt = nFinished === 0 ? null : (kept ?? now.toISOString());

  const reportName = reportFilename('performance_report', now);
  const summary: PerformanceSummary = {
    kind: 'served',
    generated_at: now.toISOString(),
    as_of: asOf.toISOString(),
    window,
    demargin: 'power',
    n_served_finished: joined.length,
    n_unserved_finished: unserved,
    groups: performanceGroups(joined, window, asOf),
    // The whole walk-forward set, never the served window: the count shown beside these figures is
    // the number of rows they are computed from.
    backtest: bt.length
      ? { kind: 'backtest', n: bt.length, groups: performanceGroups(bt, { matches: 0, days: 0 }, asOf) }
      : null,
    results: {
      n_finished: nFinished,
      last_result_kickoff: lastKickoff?.toISOString() ?? null,
      last_new_result_at: lastNewResultAt,
    },
    report_filename: reportName,
  };
  await putReport(store, reportName, renderPerformanceReport(summary));
  // Last, so that the summary never names a report that is not there yet.
  await putReport(store, KEYS.performanceLatest.key, `${JSON.stringify(summary)}\n`);
  await pruneReports(store, ['performance_report_'], 60);
  const all = summary.groups[0];
  deps.log.info(
    {
      stage: 'performance',
      as_of: summary.as_of,
      n: all.n,
      log_loss: all.log_loss,
      opening_edge: all.opening.edge_log_loss,
      closing_edge: all.closing.edge_log_loss,
      calibration_error: all.calibration_error,
      backtest_n: bt.length,
      report: reportName,
    },
    'realised performance written',
  );
  return summary;
}
