import type { FastifyInstance } from 'fastify';
import { httpRequestDuration, httpRequestsTotal } from '../../metrics.js';

/** Fastify's `/predict/:match_id` → the spec's `/predict/{match_id}`; unmatched URLs share one label. */
export function routeTemplate(url: string | undefined): string {
  if (!url) return 'unmatched';
  let template = templates.get(url);
  if (template === undefined) {
    template = url.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\*$/, '{path}');
    templates.set(url, template);
  }
  return template;
}

const templates = new Map<string, string>();

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** Accepts a caller's X-Request-Id only when it is short and plain, so logs cannot be forged or flooded. */
export function requestIdFrom(header: string | string[] | undefined, fallback: () => string): string {
  return typeof header === 'string' && REQUEST_ID.test(header) ? header : fallback();
}

/**
 * Every response carries X-Request-Id and the security headers — `documentHeaders` on the paths
 * `isDocument` accepts (HTML pages), `staticHeaders` on every other (JSON); one metrics sample and
 * one log line per request.
 */
export function registerObservability(
  app: FastifyInstance,
  staticHeaders: Record<string, string> = {},
  documentHeaders: Record<string, string> = staticHeaders,
  isDocument: (url: string) => boolean = () => false,
): void {
  // One hook sets the constant headers (security) and the request id: each hook costs a call per request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(isDocument(request.url) ? documentHeaders : staticHeaders);
    reply.header('x-request-id', request.id);
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    const path = routeTemplate(request.routeOptions.url);
    recordRequest(request.method, path, reply.statusCode, reply.elapsedTime);
    request.log.info(
      {
        request_id: request.id,
        method: request.method,
        route: path,
        status: reply.statusCode,
        ms: reply.elapsedTime,
      },
      'request',
    );
    done();
  });
}

// Labelled children are looked up once per (method, route, status): prom-client otherwise hashes
// the label set on every request.
const counters = new Map<string, { inc(n?: number): void }>();

function counterOf(method: string, path: string, status: number): { inc(n?: number): void } {
  const key = `${method} ${path} ${status}`;
  let counter = counters.get(key);
  if (!counter) {
    counter = httpRequestsTotal.labels(method, path, String(status));
    counters.set(key, counter);
  }
  return counter;
}

/** One sample of `http_requests_total` and `http_request_duration_seconds`; `path` is the route template. */
export function recordRequest(method: string, path: string, status: number, elapsedMs: number): void {
  counterOf(method, path, status).inc();
  httpRequestDuration.observe(elapsedMs / 1000);
}

/** `n` samples of the same (method, route, status) at once: the first `n` durations of `elapsedMs`. */
export function recordRequests(
  method: string,
  path: string,
  status: number,
  elapsedMs: ArrayLike<number>,
  n: number,
): void {
  counterOf(method, path, status).inc(n);
  for (let i = 0; i < n; i++) httpRequestDuration.observe(elapsedMs[i]! / 1000);
}
