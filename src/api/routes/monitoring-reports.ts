import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { isReportFilename } from '../../analytics/index.js';
import { KEYS, MatchcastError } from '../../domain/index.js';
import { modelFeatureDriftScore } from '../../metrics.js';
import type { AppContext } from '../context.js';

const NullableNumber = Type.Union([Type.Number(), Type.Null()]);

const DriftSummary = Type.Object(
  {
    drift_score: Type.Union([Type.Number(), Type.Null()], {
      description: 'Share of drifted features in the latest drift report; null when no report exists',
    }),
    n_features: Type.Optional(Type.Integer({ description: 'features tested' })),
    n_drifted: Type.Optional(Type.Integer()),
    n_skipped: Type.Optional(Type.Integer({ description: 'features with too few values to test' })),
    drifted_features: Type.Optional(Type.Array(Type.String())),
    feature_scores: Type.Optional(Type.Record(Type.String(), NullableNumber)),
    window: Type.Optional(
      Type.Object(
        { start: Type.String(), end: Type.String(), days: Type.Number(), includes_future: Type.Boolean() },
        { additionalProperties: true },
      ),
    ),
    generated_at: Type.Optional(Type.String({ description: 'ISO 8601 UTC' })),
    as_of: Type.Optional(Type.String()),
    report_filename: Type.Optional(Type.String()),
    data_quality_filename: Type.Optional(Type.String()),
  },
  { additionalProperties: true, description: 'The figures of reports/drift_latest.json' },
);

const ReportEntry = Type.Object({
  filename: Type.String({ description: 'name of an HTML drift or data-quality report' }),
  url: Type.String({
    description: 'presigned object-store URL (or HMAC-signed API URL), valid REPORT_URL_TTL s',
  }),
});

const FilenameParams = Type.Object(
  { filename: Type.String({ description: 'a filename that GET /monitoring/reports lists' }) },
  { additionalProperties: false },
);

const NotFound = Type.Object({ detail: Type.Unknown(), code: Type.Optional(Type.String()) });

const REPORTS_BUCKET = 'reports' as const;

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

/**
 * `GET /monitoring/drift`, `GET /monitoring/reports`, `GET /monitoring/reports/{filename}` (spec §2.10,
 * §2.11, §4.11). Only names matching the report pattern AND present in the store are ever signed, so
 * neither traversal nor another bucket nor another file type can be reached through these routes.
 */
export async function monitoringReportsRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  app.get(
    '/monitoring/drift',
    {
      schema: {
        tags: ['monitoring'],
        summary:
          'Latest drift summary; drift_score is null when no report exists. Refreshes model_feature_drift_score.',
        response: { 200: DriftSummary },
      },
    },
    async (request) => {
      const obj = await ctx.store.get(KEYS.driftLatest.bucket, KEYS.driftLatest.key);
      let latest: Record<string, unknown> | null = null;
      if (obj) {
        try {
          const parsed: unknown = JSON.parse(obj.body.toString('utf8'));
          if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
            latest = parsed as Record<string, unknown>;
        } catch (err) {
          request.log.warn({ err: (err as Error).message }, 'drift_latest.json is not valid JSON');
        }
      }
      const score = latest && typeof latest.drift_score === 'number' ? latest.drift_score : null;
      if (score === null) modelFeatureDriftScore.reset();
      else modelFeatureDriftScore.set(score);
      if (!latest) return { drift_score: null };
      // The per-feature details (with histograms' inputs) stay in the file; the summary is what callers poll.
      const { features: _features, ...summary } = latest;
      return { ...summary, drift_score: score };
    },
  );

  app.get(
    '/monitoring/reports',
    {
      schema: {
        tags: ['monitoring'],
        summary: 'HTML drift and data-quality reports with a time-limited URL each',
        response: { 200: Type.Array(ReportEntry) },
      },
    },
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
    {
      schema: {
        tags: ['monitoring'],
        summary: 'Redirect (307) to a time-limited URL of a report that GET /monitoring/reports lists',
        params: FilenameParams,
        response: { 307: Type.Null({ description: 'Location: the report URL' }), 404: NotFound },
      },
    },
    async (request, reply) => {
      const { filename } = request.params as { filename: string };
      // The allow-list comes first: nothing that fails it ever reaches the store.
      if (!isReportFilename(filename) || !(await ctx.store.head(REPORTS_BUCKET, filename))) {
        throw new MatchcastError('MC_ERR_NOT_FOUND', 'Report not found');
      }
      const url = await ctx.store.presign(REPORTS_BUCKET, filename, ctx.config.reportUrlTtl);
      return reply.code(307).header('location', url).header('cache-control', 'no-store').send();
    },
  );
}
