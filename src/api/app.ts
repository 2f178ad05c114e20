import { randomUUID } from 'node:crypto';
import cors from '@fastify/cors';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { AppContext } from './context.js';
import { hasValidKey, registerAuth, unmatchedNeedsKey } from './plugins/auth.js';
import { registerDocs } from './plugins/docs.js';
import { clientErrorHandler, frameworkErrorHandler, registerErrorHandling } from './plugins/errors.js';
import { registerObservability, requestIdFrom } from './plugins/observability.js';
import { apiSecurityHeaders, isDocumentPath, securityHeaders } from './plugins/security-headers.js';
import { registerStrictValidation } from './plugins/validation.js';
import { ROUTE_MODULES } from './routes/index.js';
import { SERVICE_VERSION } from './version.js';

export interface BuildAppOptions {
  /** Log every request as a JSON line. Default `true`. */
  logRequests?: boolean;
  /** While `draining`, a connection with a request in flight is closed once answered (`runServer`). */
  shutdown?: { draining: boolean };
}

/** The Fastify app with the contract every route shares (spec §1, §5, §7, §9). */
export async function buildApp(ctx: AppContext, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  // pino's Logger is wider than FastifyBaseLogger; the cast keeps route modules on the plain instance type.
  const log = options.logRequests === false ? ctx.log.child({}, { level: 'warn' }) : ctx.log;
  const documentHeaders = securityHeaders();
  const headers = apiSecurityHeaders(documentHeaders);
  const app = Fastify({
    // The access line comes from the observability hook, not from Fastify's per-request lines.
    loggerInstance: log as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    // No per-request child logger (a pino child costs ~1 µs): the lines a request writes name
    // its request_id themselves.
    childLoggerFactory: (logger) => logger,
    genReqId: (req) => requestIdFrom(req.headers['x-request-id'], randomUUID),
    bodyLimit: ctx.config.bodyLimitBytes,
    // Errors raised before routing (undecodable URL, HTTP parser) keep the {detail, code} contract too.
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    // During a rolling restart a request that still arrives on an open connection is served, not refused.
    return503OnClosing: false,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    // A request must arrive within REQUEST_TIMEOUT_MS, else 408 (no trickled body holds a connection);
    // Node checks every second, not every 30 s.
    requestTimeout: ctx.config.requestTimeoutMs,
    http: {
      headersTimeout: ctx.config.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, ctx.config.requestTimeoutMs),
    },
  }) as unknown as FastifyInstance;
  // Bodies are JSON only: Fastify's built-in text/plain parser would hand a route a string, answered
  // as a puzzling 422 "must be object"; without it such a body is 415 MC_ERR_UNSUPPORTED_MEDIA_TYPE.
  app.removeContentTypeParser('text/plain');

  const protectMonitoring = ctx.config.monitoringRequireKey;
  registerObservability(app, {
    staticHeaders: headers,
    documentHeaders,
    isDocument: isDocumentPath,
    accessLog: log,
    shutdown: options.shutdown,
  });
  registerErrorHandling(app, {
    needsKey: (request) =>
      unmatchedNeedsKey(request, protectMonitoring) && !hasValidKey(request, ctx.config.apiKey),
  });
  // Bodies validated without coercion, path/query with; unknown query fields rejected everywhere.
  registerStrictValidation(app);
  // Without configured origins no CORS header is sent (browsers: denied), so no per-request hook.
  if (ctx.config.corsAllowedOrigins.length > 0) {
    await app.register(cors, {
      origin: ctx.config.corsAllowedOrigins,
      // As strings: the plugin joins arrays on every response (exposed) or preflight (the others).
      methods: 'GET, POST, OPTIONS',
      allowedHeaders: 'X-API-Key, Content-Type, X-Request-Id',
      exposedHeaders: 'X-Request-Id, ETag',
    });
  }
  registerAuth(app, { apiKey: ctx.config.apiKey, protectMonitoring });
  await registerDocs(app, SERVICE_VERSION);

  for (const register of ROUTE_MODULES) await register(app, ctx);
  return app;
}
