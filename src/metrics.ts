import client from 'prom-client';

/** prom-client's default registry: spec §4.2's metrics and Node's defaults. */
export const registry = client.register;

client.collectDefaultMetrics();
// promtool rejects these (gauges named like counters).
for (const kind of ['handles', 'requests', 'resources'])
  registry.removeSingleMetric(`nodejs_active_${kind}_total`);

const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export const httpRequestsTotal = new client.Counter({
  name: 'http_requests_total',
  help: 'HTTP requests by method, route template and status code',
  labelNames: ['method', 'path', 'status_code'] as const,
});

export const httpRequestDuration = new client.Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP request latency in seconds',
  buckets: LATENCY_BUCKETS,
});

export const predictionRequestsTotal = new client.Counter({
  name: 'prediction_requests_total',
  help: 'Prediction tasks dispatched to the ml queue, by source (sync or async)',
  labelNames: ['source'] as const,
});

export const predictionDuration = new client.Histogram({
  name: 'prediction_duration_seconds',
  help: 'Live prediction latency including the queue round trip, in seconds',
  buckets: LATENCY_BUCKETS,
});

export const inferenceDuration = new client.Histogram({
  name: 'inference_duration_seconds',
  help: 'Model inference time inside the worker, in seconds',
  buckets: [0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1],
});

export const predictionConfidence = new client.Histogram({
  name: 'prediction_confidence',
  help: 'Predicted probability per outcome class',
  labelNames: ['outcome'] as const,
  buckets: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1],
});

export const modelInfo = new client.Gauge({
  name: 'model_info',
  help: '1 when a worker has this model loaded; 0 means workers run with no model',
  labelNames: ['model_name', 'version', 'stage'] as const,
});

export const modelRegisteredAt = new client.Gauge({
  name: 'model_registered_at_seconds',
  help: 'Unix time the worker last loaded the model version',
  labelNames: ['model_name'] as const,
});

// File-backed gauges are refreshed on scrape by a loader their route module registers, so a scrape
// never shows a stale or made-up value before anyone called the route.
type Refreshed = 'drift' | 'performance' | 'sources';
const scrapeRefreshers = new Map<Refreshed, () => Promise<void>>();

/** Registers (or replaces) the loader that refreshes the gauges of `name` before a scrape. */
export function registerScrapeRefresher(name: Refreshed, fn: () => Promise<void>): void {
  scrapeRefreshers.set(name, fn);
}

async function refreshForScrape(name: Refreshed): Promise<void> {
  // A failing store must not fail the whole exposition: the gauges keep their last values.
  await scrapeRefreshers
    .get(name)?.()
    .catch(() => undefined);
}

export const modelFeatureDriftScore = new client.Gauge({
  name: 'model_feature_drift_score',
  help: 'Share of drifted features in the latest drift report (NaN when no report exists); refreshed by GET /monitoring/drift and on scrape',
  collect: () => refreshForScrape('drift'),
});
// NaN, not 0, until a drift report says otherwise: `/monitoring/drift` answers null then.
modelFeatureDriftScore.set(Number.NaN);

/** A gauge refreshed by the loader of `refreshed` before each scrape. */
const refreshedGauge = (refreshed: Refreshed, name: string, help: string, labelNames: readonly string[]) =>
  new client.Gauge({ name, help, labelNames, collect: () => refreshForScrape(refreshed) });
const realised = refreshedGauge.bind(null, 'performance');

/** Realised performance of the served predictions (docs/monitoring.md); `region="all"` is every region. */
export const realisedMatches = realised(
  'matchcast_realised_matches',
  'Finished served matches in the realised-performance window, by region',
  ['region'],
);
export const realisedLogLoss = realised(
  'matchcast_realised_log_loss',
  'Realised log loss of the predictions served before kick-off, over the window, by region',
  ['region'],
);
export const realisedRps = realised(
  'matchcast_realised_rps',
  'Realised ranked probability score of the served predictions, by region',
  ['region'],
);
export const realisedBrier = realised(
  'matchcast_realised_brier',
  'Realised multi-class Brier score (0..2) of the served predictions, by region',
  ['region'],
);
export const realisedLineLogLoss = realised(
  'matchcast_realised_line_log_loss',
  'Log loss of the de-margined market line (opening or closing) on the same matches, by region',
  ['region', 'line'],
);
export const realisedEdgeLogLoss = realised(
  'matchcast_realised_edge_log_loss',
  'Market line log loss minus served log loss on the same matches (positive = the served predictions beat the line)',
  ['region', 'line'],
);
export const realisedCalibrationError = realised(
  'matchcast_realised_calibration_error',
  'Expected calibration error of the served predictions over probability deciles, by region',
  ['region'],
);
export const performanceGeneratedAt = realised(
  'matchcast_performance_generated_timestamp_seconds',
  'Unix time the realised-performance figures were last computed',
  [],
);
export const resultsLastNewAt = realised(
  'matchcast_results_last_new_timestamp_seconds',
  'Unix time the monitor last saw a new finished match (result ingested or released by the replay clock)',
  [],
);

export const predictionTimeoutsTotal = new client.Counter({
  name: 'prediction_timeouts_total',
  help: 'Synchronous predictions that timed out (504 responses)',
});

export const artifactLoadFailuresTotal = new client.Counter({
  name: 'matchcast_artifact_load_failures_total',
  help: 'Artifacts (predictions, odds, ROI, features) that failed to load and were not swapped in',
  labelNames: ['artifact'] as const,
});

/** Per configured source (docs/sources.md); an API process reads them from the sources table. */

export const sourceLastSuccess = refreshedGauge(
  'sources',
  'matchcast_source_last_success_timestamp_seconds',
  'Unix time of the last successful poll of a source (a 304 or an unchanged body counts; its creation until one succeeds)',
  ['source'],
);
export const sourcePeriod = refreshedGauge(
  'sources',
  'matchcast_source_period_seconds',
  'Polling period of a source, in seconds',
  ['source'],
);
export const sourcePollsTotal = new client.Counter({
  name: 'matchcast_source_polls_total',
  help: 'Polls of a source by outcome (ok, not_modified, failed)',
  labelNames: ['source', 'outcome'] as const,
});
export const sourceErrorsTotal = new client.Counter({
  name: 'matchcast_source_errors_total',
  help: 'Coded errors recorded on a source (a failed poll, or rows skipped / unknown teams of a good one)',
  labelNames: ['source', 'code'] as const,
});
export const sourceRowsTotal = new client.Counter({
  name: 'matchcast_source_rows_added_total',
  help: 'Matches inserted or updated and odds observations added by the polls of a source',
  labelNames: ['source'] as const,
});

/** Freshness of each source polled by this process, from the gauges its polls set (empty when none). */
export async function sourceFreshness(
  nowMs: number,
): Promise<{ name: string; last_success_at: string | null; period_seconds: number; fresh: boolean }[]> {
  await refreshForScrape('sources');
  const periods = new Map(
    (await sourcePeriod.get()).values.map((v) => [String(v.labels.source), v.value] as const),
  );
  const last = new Map(
    (await sourceLastSuccess.get()).values.map((v) => [String(v.labels.source), v.value] as const),
  );
  return [...periods]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, period]) => {
      const at = last.get(name);
      return {
        name,
        last_success_at: at === undefined ? null : new Date(at * 1000).toISOString(),
        period_seconds: period,
        fresh: at !== undefined && nowMs - at * 1000 <= 2 * period * 1000,
      };
    });
}

// Zero-valued series exist from the start so that dashboards and promtool see every metric.
predictionRequestsTotal.labels('sync').inc(0);
predictionRequestsTotal.labels('async').inc(0);
predictionTimeoutsTotal.inc(0);
