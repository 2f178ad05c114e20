import { randomUUID } from 'node:crypto';
import cors from '@fastify/cors';
import Fastify, { type FastifyInstance, LogController } from 'fastify';
import type { AppContext } from './context.js';
import { createHotPath, type HotPath, hotPathServerFactory } from './hot-path.js';
import { registerAuth } from './plugins/auth.js';
import { registerDocs } from './plugins/docs.js';
import {
  clientErrorHandler,
  frameworkErrorHandler,
  registerErrorHandling,
  registerFiniteNumberCheck,
} from './plugins/errors.js';
import { registerObservability, requestIdFrom } from './plugins/observability.js';
import { apiSecurityHeaders, isDocumentPath, securityHeaders } from './plugins/security-headers.js';
import { ROUTE_MODULES } from './routes/index.js';
import { SERVICE_VERSION } from './version.js';

/** Options of {@link buildApp}. */
export interface BuildAppOptions {
  /** Log every request as a JSON line. Default `true`. */
  logRequests?: boolean;
  /**
   * Answer successful `GET /predict/precomputed/{id}` requests in front of Fastify (src/api/hot-path.ts).
   * Off when CORS origins are configured. Default `true`.
   */
  hotPath?: boolean;
}

const HOT_PATHS = new WeakMap<FastifyInstance, HotPath>();

/** The hot path in front of `app`, when it has one (tests and benchmarks read its counter). */
export function hotPathOf(app: FastifyInstance): HotPath | undefined {
  return HOT_PATHS.get(app);
}

/**
 * Builds the Fastify app with the contract every route shares (spec §1, §5, §7, §9): API key on
 * `/predict/*`, strict validation (unknown query and body fields rejected, 422 with the fields),
 * `{detail}` errors, X-Request-Id on every response, metrics per route template, CORS, security
 * headers and the OpenAPI description.
 */
export async function buildApp(ctx: AppContext, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  // pino's Logger is wider than FastifyBaseLogger; the cast keeps route modules on the plain instance type.
  const log = options.logRequests === false ? ctx.log.child({}, { level: 'warn' }) : ctx.log;
  const documentHeaders = securityHeaders();
  const headers = apiSecurityHeaders(documentHeaders);
  // The hot path has no CORS logic: with origins configured every request goes through the plugin.
  const hot =
    options.hotPath !== false && ctx.config.corsAllowedOrigins.length === 0
      ? createHotPath({ views: ctx.views, apiKey: ctx.config.apiKey, staticHeaders: headers, log })
      : undefined;
  const app = Fastify({
    loggerInstance: log,
    ...(hot ? { serverFactory: hotPathServerFactory(hot) } : {}),
    // One line per request comes from the observability hook (with the route template), not Fastify's pair.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: (req) => requestIdFrom(req.headers['x-request-id'], randomUUID),
    bodyLimit: ctx.config.bodyLimitBytes,
    // Errors raised before routing (undecodable URL, HTTP parser) keep the {detail, code} contract too.
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    // During a rolling restart a request that still arrives on an open connection is served, not refused.
    return503OnClosing: false,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    ajv: {
      customOptions: { removeAdditional: false, coerceTypes: 'array', allErrors: true, useDefaults: true },
    },
  }) as unknown as FastifyInstance;

  // From here on Fastify answers everything: its closing logic adds `Connection: close`.
  if (hot) {
    HOT_PATHS.set(app, hot);
    app.addHook('preClose', (done) => {
      hot.disable();
      done();
    });
  }
  registerObservability(app, headers, documentHeaders, isDocumentPath);
  registerErrorHandling(app);
  registerFiniteNumberCheck(app);
  // Strict validation for every documented route: one without query parameters still rejects
  // unknown ones (422), as the routes that declare a querystring do with additionalProperties: false.
  app.addHook('onRoute', (route) => {
    const schema = route.schema as { hide?: boolean; querystring?: unknown } | undefined;
    if (schema && !schema.hide && schema.querystring === undefined) {
      schema.querystring = { type: 'object', properties: {}, additionalProperties: false };
    }
  });
  // Without configured origins no CORS header is ever sent, which browsers treat as "denied"; not
  // registering the plugin then saves its per-request hook.
  if (ctx.config.corsAllowedOrigins.length > 0) {
    await app.register(cors, {
      origin: ctx.config.corsAllowedOrigins,
      methods: ['GET', 'POST', 'OPTIONS'],
      allowedHeaders: ['X-API-Key', 'Content-Type', 'X-Request-Id'],
      exposedHeaders: ['X-Request-Id', 'ETag'],
    });
  }
  registerAuth(app, { apiKey: ctx.config.apiKey, protectMonitoring: ctx.config.monitoringRequireKey });
  await registerDocs(app, SERVICE_VERSION);

  for (const register of ROUTE_MODULES) await register(app, ctx);
  return app;
}
