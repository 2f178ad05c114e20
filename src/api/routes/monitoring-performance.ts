import type { FastifyInstance } from 'fastify';
import {
  performanceGeneratedAt,
  realisedBrier,
  realisedCalibrationError,
  realisedEdgeLogLoss,
  realisedLineLogLoss,
  realisedLogLoss,
  realisedMatches,
  realisedRps,
  registerScrapeRefresher,
  resultsLastNewAt,
} from '../../metrics.js';
import {
  EXAMPLE_PERFORMANCE,
  EXAMPLE_PROMOTION,
  PerformanceSummary,
  PromotionStatus,
  respond,
  route,
} from '../../schemas/index.js';
import type { AppContext } from '../context.js';
import { readJsonArtifact } from './monitoring-reports.js';

function empty(ctx: AppContext): PerformanceSummary {
  return {
    available: false,
    kind: 'served',
    generated_at: null,
    as_of: null,
    window: { matches: ctx.config.performanceWindowMatches, days: ctx.config.performanceWindowDays },
    demargin: 'power',
    n_served_finished: 0,
    n_unserved_finished: 0,
    groups: [],
    backtest: null,
    results: null,
    report_filename: null,
  };
}

/** The gauges mirror the summary exactly: a region or line without figures has no series at all. */
export function setPerformanceGauges(s: PerformanceSummary): void {
  for (const g of [
    realisedMatches,
    realisedLogLoss,
    realisedRps,
    realisedBrier,
    realisedLineLogLoss,
    realisedEdgeLogLoss,
    realisedCalibrationError,
    performanceGeneratedAt,
    resultsLastNewAt,
  ]) {
    g.reset();
  }
  if (!s.available) {
    performanceGeneratedAt.set(Number.NaN);
    resultsLastNewAt.set(Number.NaN);
    return;
  }
  const set = (g: typeof realisedLogLoss, labels: Record<string, string>, v: number | null) => {
    if (v !== null && Number.isFinite(v)) g.set(labels, v);
  };
  for (const grp of s.groups) {
    const region = grp.region_name;
    realisedMatches.set({ region }, grp.n);
    set(realisedLogLoss, { region }, grp.log_loss);
    set(realisedRps, { region }, grp.rps);
    set(realisedBrier, { region }, grp.brier);
    set(realisedCalibrationError, { region }, grp.calibration_error);
    for (const line of ['opening', 'closing'] as const) {
      set(realisedLineLogLoss, { region, line }, grp[line].line_log_loss);
      set(realisedEdgeLogLoss, { region, line }, grp[line].edge_log_loss);
    }
  }
  const ts = (iso: string | null | undefined) => (iso ? Date.parse(iso) / 1000 : Number.NaN);
  performanceGeneratedAt.set(ts(s.generated_at));
  resultsLastNewAt.set(ts(s.results?.last_new_result_at));
}

/** `GET /monitoring/performance`; the matchcast_realised_* gauges follow the same file. */
export async function monitoringPerformanceRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  let cached: { at: number; summary: PerformanceSummary } | null = null;
  let inflight: Promise<PerformanceSummary> | null = null;
  const load = async (): Promise<PerformanceSummary> => {
    const parsed = await readJsonArtifact(ctx, 'performanceLatest', 'performance_latest.json');
    const summary: PerformanceSummary = Array.isArray(parsed?.groups)
      ? { ...(parsed as Omit<PerformanceSummary, 'available'>), available: true }
      : empty(ctx);
    setPerformanceGauges(summary);
    cached = { at: Date.now(), summary };
    return summary;
  };
  // One store read per refresh interval however often Prometheus scrapes; the route always reads.
  const loadShared = (): Promise<PerformanceSummary> => {
    inflight ??= load().finally(() => {
      inflight = null;
    });
    return inflight;
  };
  registerScrapeRefresher('performance', async () => {
    if (cached && Date.now() - cached.at < ctx.config.viewRefreshMs) return;
    await loadShared();
  });

  app.get(
    '/monitoring/performance',
    route('monitoring', {
      summary:
        'Realised log loss, RPS, Brier and calibration of the predictions served before kick-off, per region, beside the opening and closing lines',
      response: {
        200: respond(
          PerformanceSummary,
          'The latest realised-performance figures (`available: false` before the performance stage has run)',
          [EXAMPLE_PERFORMANCE],
        ),
      },
    }),
    async () => loadShared(),
  );

  app.get(
    '/monitoring/promotion',
    route('monitoring', {
      summary:
        "The promotion guard's comparison for the newest model version: champion, opening and closing lines on the same validation matches",
      response: {
        200: respond(
          PromotionStatus,
          'The newest judged version and the aliases (`available: false` before any promote stage)',
          [EXAMPLE_PROMOTION],
        ),
      },
    }),
    async (): Promise<PromotionStatus> => {
      const aliases = (await ctx.registry.aliases()) as Record<string, string>;
      // The newest version the guard judged (a first start's challenger, say, never went through it).
      const versions = (await ctx.registry.listVersions())
        .map((v) => v.version)
        .sort((a, b) => Number(b) - Number(a))
        .slice(0, 10);
      for (const v of versions) {
        const comparison = await ctx.registry.readComparison(v);
        if (comparison) return { available: true, aliases, comparison };
      }
      return { available: false, aliases, comparison: null };
    },
  );
}
