import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { driftNoScore, isReportFilename } from '../../analytics/index.js';
import { MatchcastError } from '../../domain/index.js';
import { modelFeatureDriftScore, registerScrapeRefresher } from '../../metrics.js';
import { type ArtifactName, readArtifact } from '../../runs/index.js';
import {
  DriftSummary,
  EXAMPLE_DRIFT,
  EXAMPLE_REPORT,
  errorResponses,
  FilenameParams,
  noBody,
  ReportEntry,
  respond,
  route,
} from '../../schemas/index.js';
import type { AppContext } from '../context.js';

const REPORTS_BUCKET = 'reports' as const;

/** The published run's JSON object `name`, or null when absent or not an object. */
export async function readJsonArtifact(ctx: AppContext, name: ArtifactName, file: string) {
  const obj = await readArtifact(ctx, name);
  try {
    const parsed: unknown = obj && JSON.parse(obj.body.toString('utf8'));
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch (err) {
    ctx.log.warn({ err: (err as Error).message }, `${file} is not valid JSON`);
  }
  return null;
}

/** The HTML reports in the reports bucket, newest first (the names carry a sortable UTC timestamp). */
async function listReports(ctx: AppContext): Promise<string[]> {
  const objects = await ctx.store.list(REPORTS_BUCKET);
  return objects
    .map((o) => o.key)
    .filter(isReportFilename)
    .sort((a, b) => {
      const ta = a.slice(a.lastIndexOf('_') + 1);
      const tb = b.slice(b.lastIndexOf('_') + 1);
      return tb.localeCompare(ta) || a.localeCompare(b);
    });
}

/** The drift answer: the report's summary, or `{drift_score: null}`, and why there is no score. */
function driftAnswer(latest: Record<string, unknown> | null) {
  const score = latest && typeof latest.drift_score === 'number' ? latest.drift_score : null;
  const none = driftNoScore(latest);
  const why = none ? { no_score_reason: none.reason, no_score_detail: none.detail } : {};
  if (!latest) return { drift_score: null, ...why };
  // The per-feature details (with histograms' inputs) stay in the file; the summary is what callers poll.
  const { features: _features, ...summary } = latest;
  return { ...summary, drift_score: score, ...why };
}

/** Drift and reports (spec §2.10, §2.11, §4.11): only listed report names present in the store are signed. */
export async function monitoringReportsRoutes(root: FastifyInstance, ctx: AppContext): Promise<void> {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  // The route and the gauge read the same file the same way: null summary ⇔ NaN gauge (never a made-up 0).
  let lastLoad = 0;
  const loadDrift = async (): Promise<Record<string, unknown> | null> => {
    const latest = await readJsonArtifact(ctx, 'driftLatest', 'drift_latest.json');
    const score = latest && typeof latest.drift_score === 'number' ? latest.drift_score : null;
    modelFeatureDriftScore.set(score ?? Number.NaN);
    lastLoad = Date.now();
    return latest;
  };
  registerScrapeRefresher('drift', async () => {
    if (Date.now() - lastLoad >= ctx.config.viewRefreshMs) await loadDrift();
  });

  app.get(
    '/monitoring/drift',
    route('monitoring', {
      summary:
        'Latest drift summary; drift_score is null when no report exists. Refreshes model_feature_drift_score.',
      response: {
        200: respond(DriftSummary, 'The latest drift figures, or `{drift_score: null}`', [
          EXAMPLE_DRIFT,
          driftAnswer(null),
        ]),
      },
    }),
    async () => driftAnswer(await loadDrift()),
  );

  app.get(
    '/monitoring/reports',
    route('monitoring', {
      summary: 'HTML drift and data-quality reports with a time-limited URL each',
      response: {
        200: respond(Type.Array(ReportEntry), 'Every report, newest first', [[EXAMPLE_REPORT]]),
        ...errorResponses('MC_ERR_STORE_UNAVAILABLE'),
      },
    }),
    async () => {
      const names = await listReports(ctx);
      return Promise.all(
        names.map(async (filename) => ({
          filename,
          url: await ctx.store.presign(REPORTS_BUCKET, filename, ctx.config.reportUrlTtl),
        })),
      );
    },
  );

  app.get(
    '/monitoring/reports/:filename',
    route('monitoring', {
      summary: 'Redirect (307) to a time-limited URL of a report that GET /monitoring/reports lists',
      params: FilenameParams,
      response: {
        307: noBody('Temporary Redirect; Location: the time-limited report URL'),
        ...errorResponses('MC_ERR_NOT_FOUND'),
      },
    }),
    async (request, reply) => {
      const { filename } = request.params;
      // The allow-list comes first: nothing that fails it ever reaches the store.
      if (!isReportFilename(filename) || !(await ctx.store.head(REPORTS_BUCKET, filename))) {
        throw new MatchcastError('MC_ERR_NOT_FOUND', 'Report not found');
      }
      const url = await ctx.store.presign(REPORTS_BUCKET, filename, ctx.config.reportUrlTtl);
      return reply.header('cache-control', 'no-store').redirect(url, 307);
    },
  );
}
