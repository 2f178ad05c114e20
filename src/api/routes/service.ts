import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { registry } from '../../metrics.js';
import type { AppContext } from '../context.js';
import { SERVICE_VERSION } from '../version.js';

const Health = Type.Object({
  status: Type.String({ description: '`healthy` when the database answers, `degraded` otherwise' }),
  version: Type.String(),
  worker_pid: Type.Integer(),
  memory_usage_mb: Type.Number(),
  database: Type.Boolean({ description: 'database connectivity' }),
});

/** `GET /`, `GET /healthcheck/`, `GET /metrics`: open routes that need no model. */
export async function serviceRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  app.get(
    '/',
    {
      schema: {
        tags: ['service'],
        summary: 'Landing: service name, version and links',
        response: {
          200: Type.Object({
            name: Type.String(),
            version: Type.String(),
            docs: Type.String(),
            openapi: Type.String(),
            ui: Type.String(),
            health: Type.String(),
          }),
        },
      },
    },
    async () => ({
      name: 'matchcast',
      version: SERVICE_VERSION,
      docs: '/docs',
      openapi: '/openapi.json',
      ui: '/ui/',
      health: '/healthcheck/',
    }),
  );

  // Liveness must not depend on Redis or the object store; a database outage is reported, not fatal:
  // restarting pods cannot fix the database, so the probe still answers 200 (documented).
  app.get(
    '/healthcheck/',
    { schema: { tags: ['service'], summary: 'Liveness probe', response: { 200: Health } } },
    async () => {
      const database = await ctx.db.ping(Math.min(ctx.config.dbTimeoutMs, 1000));
      return {
        status: database ? 'healthy' : 'degraded',
        version: SERVICE_VERSION,
        worker_pid: process.pid,
        memory_usage_mb: Math.round((process.memoryUsage().rss / 1048576) * 100) / 100,
        database,
      };
    },
  );

  app.get(
    '/metrics',
    { schema: { tags: ['service'], summary: 'Prometheus text exposition' } },
    async (_req, reply) => {
      reply.header('content-type', registry.contentType);
      return registry.metrics();
    },
  );
}
