import type { FastifyInstance } from 'fastify';
import type { Logger } from '../../logger.js';
import { httpRequestDuration, httpRequestsTotal } from '../../metrics.js';

/** Fastify's `/predict/:match_id` → the spec's `/predict/{match_id}`; unmatched URLs share one label. */
function routeTemplate(url: string | undefined): string {
  if (!url) return 'unmatched';
  if (!templates.has(url))
    templates.set(url, url.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\*$/, '{path}'));
  return templates.get(url)!;
}

const templates = new Map<string, string>();

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** Accepts a caller's X-Request-Id only when it is short and plain, so logs cannot be forged or flooded. */
export function requestIdFrom(header: string | string[] | undefined, fallback: () => string): string {
  return typeof header === 'string' && REQUEST_ID.test(header) ? header : fallback();
}

interface ObservabilityOptions {
  /** Headers of every JSON response (the API security headers). Default none. */
  staticHeaders?: Record<string, string>;
  /** Headers of HTML documents (paths `isDocument` accepts). Default `staticHeaders`. */
  documentHeaders?: Record<string, string>;
  isDocument?: (url: string) => boolean;
  /** Where the access lines go (`info`, one per request). Default: no lines. */
  accessLog?: Logger;
  /** While `draining`, a keep-alive connection is closed once its response is sent. */
  shutdown?: { draining: boolean };
}

/** Headers set on arrival, so 401s carry them too; `onResponse` sees every answer's final status. */
export function registerObservability(app: FastifyInstance, options: ObservabilityOptions = {}): void {
  const staticHeaders = options.staticHeaders ?? {};
  const documentHeaders = options.documentHeaders ?? staticHeaders;
  const isDocument = options.isDocument ?? (() => false);
  const log = options.accessLog?.isLevelEnabled('info') ? options.accessLog : undefined;
  const shutdown = options.shutdown ?? { draining: false };
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(isDocument(request.url) ? documentHeaders : staticHeaders);
    reply.header('x-request-id', request.id);
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    const route = routeTemplate(request.routeOptions.url);
    const { statusCode: status, elapsedTime: ms } = reply;
    httpRequestsTotal.inc({ method: request.method, path: route, status_code: String(status) });
    httpRequestDuration.observe(ms / 1000);
    log?.info({ request_id: request.id, method: request.method, route, status, ms }, 'request');
    // The response is out and the connection idle: close it now rather than when keep-alive lapses.
    if (shutdown.draining) app.server.closeIdleConnections();
    done();
  });
}
