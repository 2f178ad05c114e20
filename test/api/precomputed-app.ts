import Fastify, { type FastifyInstance } from 'fastify';
import type { AppContext } from '../../src/api/context.js';
import { registerAuth } from '../../src/api/plugins/auth.js';
import { registerErrorHandling } from '../../src/api/plugins/errors.js';
import { registerObservability } from '../../src/api/plugins/observability.js';
import { precomputedRoutes } from '../../src/api/routes/precomputed.js';
import type { Harness } from '../serving/harness.js';

/**
 * The precomputed routes on an app with the shared contract of `buildApp` (auth by prefix, 422,
 * `{detail}` errors, request ids, metrics) and the same Ajv options. Only the members the routes
 * read are in the context; the other ports are not touched by these routes.
 */
export async function precomputedApp(h: Harness): Promise<FastifyInstance> {
  const app = Fastify({
    logger: false,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    ajv: {
      customOptions: { removeAdditional: false, coerceTypes: 'array', allErrors: true, useDefaults: true },
    },
  }) as unknown as FastifyInstance;
  registerObservability(app);
  registerErrorHandling(app);
  registerAuth(app, { apiKey: h.config.apiKey });
  const ctx = {
    config: h.config,
    log: h.log,
    db: h.db,
    store: h.store,
    views: h.views,
  } as unknown as AppContext;
  await precomputedRoutes(app, ctx);
  await app.ready();
  return app;
}
