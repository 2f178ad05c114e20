import type { FastifyInstance } from 'fastify';
import { registerScrapeRefresher, registry, sourceFreshness } from '../../metrics.js';
import {
  EXAMPLE_HEALTH,
  EXAMPLE_LANDING,
  EXAMPLE_METRICS,
  EXAMPLE_NOT_READY,
  EXAMPLE_READY,
  Health,
  Landing,
  MetricsText,
  Readiness,
  respond,
  route,
} from '../../schemas/index.js';
import { SourcesRepository, setSourceGauges } from '../../sources/index.js';
import type { AppContext } from '../context.js';
import { SERVICE_VERSION } from '../version.js';

/** `GET /`, `GET /healthcheck/`, `GET /metrics`: open routes that need no model. */
export async function serviceRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  // The source gauges (and the healthcheck's freshness) follow the sources table, whichever process
  // polls: read at most every 5 s, bounded by the request's database timeout, a failure keeps them.
  let sourcesRead: { at: number; done: Promise<void> } | null = null;
  registerScrapeRefresher('sources', () => {
    // Both source gauges are collected at once: the second waits for the read the first started.
    if (!sourcesRead || Date.now() - sourcesRead.at >= 5000)
      sourcesRead = {
        at: Date.now(),
        done: new SourcesRepository(ctx.db)
          .list({ timeoutMs: Math.min(ctx.config.dbTimeoutMs, 1000) })
          .then(setSourceGauges),
      };
    return sourcesRead.done;
  });
  app.get(
    '/',
    route('service', {
      summary: 'Landing: service name, version and links',
      response: { 200: respond(Landing, 'Service name, version and links', [EXAMPLE_LANDING]) },
    }),
    async () => ({ ...EXAMPLE_LANDING, version: SERVICE_VERSION }),
  );

  // Liveness must not depend on Redis or the object store; a database outage is reported, not fatal:
  // restarting pods cannot fix the database, so the probe still answers 200 (documented).
  app.get(
    '/healthcheck/',
    route('service', {
      summary: 'Liveness probe',
      response: {
        200: respond(Health, 'Alive; `status` says healthy or degraded (database, predictions)', [
          EXAMPLE_HEALTH,
        ]),
      },
    }),
    async () => {
      const database = await ctx.db.ping(Math.min(ctx.config.dbTimeoutMs, 1000));
      // A service with nothing to serve (e.g. a first start that never finished) is not healthy.
      const predictions = ctx.views.status().predictions.state === 'loaded';
      const sources = await sourceFreshness(Date.now());
      return {
        status: database && predictions ? 'healthy' : 'degraded',
        version: SERVICE_VERSION,
        worker_pid: process.pid,
        memory_usage_mb: Math.round((process.memoryUsage().rss / 1048576) * 100) / 100,
        database,
        predictions,
        // A replay's clock (docs/operations.md#replay-a-real-season): where the season has got to.
        ...(ctx.clock?.simulated ? { clock: ctx.clock.now().toISOString() } : {}),
        // Sources polled by this process (docs/sources.md): freshness only, `status` stays as it is.
        ...(sources.length > 0 ? { sources } : {}),
      };
    },
  );

  // Readiness: 200 once there are predictions to serve, whatever the database and broker do (their routes
  // answer a coded 503 themselves; leaving rotation would only lose the precomputed routes).
  app.get(
    '/readyz',
    route('service', {
      summary: 'Readiness probe: 200 when predictions are loaded, 503 otherwise',
      response: {
        200: respond(Readiness, 'Ready: a predictions file is loaded', [EXAMPLE_READY]),
        503: respond(Readiness, 'Not ready: nothing to serve yet (a probe answer, not an error)', [
          EXAMPLE_NOT_READY,
        ]),
      },
    }),
    async (_request, reply) => {
      const bound = Math.min(ctx.config.dbTimeoutMs, 500);
      const [database, broker] = await Promise.all([ctx.db.ping(bound), ctx.queue.ready(bound)]);
      const predictions = ctx.views.status().predictions.state === 'loaded';
      const checks = { predictions, database, broker };
      if (predictions) return { status: 'ready' as const, checks };
      reply.code(503);
      return { ...EXAMPLE_NOT_READY, checks };
    },
  );

  app.get(
    '/metrics',
    route('service', {
      summary: 'Prometheus text exposition',
      produces: ['text/plain'],
      response: { 200: respond(MetricsText, 'Every metric of spec §4.2', [EXAMPLE_METRICS]) },
    }),
    async (_req, reply) => {
      reply.header('content-type', registry.contentType);
      return registry.metrics();
    },
  );
}
