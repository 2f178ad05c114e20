import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Logger } from '../logger.js';
import type { Views } from '../serving/index.js';
import { keysMatch } from './plugins/auth.js';
import { requestIdFrom } from './plugins/observability.js';
import { createRequestBatch } from './request-batch.js';

/** The route template the hot path answers for, as metrics and logs name it. */
export const HOT_ROUTE = '/predict/precomputed/{match_id}';

/** Canonical ids only (no sign, no leading zero, no query): anything else is Fastify's to judge. */
const HOT_URL = /^\/predict\/precomputed\/([1-9][0-9]{0,15})\/?$/;
const JSON_TYPE = 'application/json; charset=utf-8';

/** Options of {@link createHotPath}. */
export interface HotPathOptions {
  views: Views;
  /** The configured key; undefined disables the hot path (every protected request is then a 401). */
  apiKey: string | undefined;
  /** Headers every JSON response carries (the API security headers of `registerObservability`). */
  staticHeaders: Record<string, string>;
  /** Where the per-request line goes; at `warn` or above nothing is written, as for other routes. */
  log: Logger;
}

/** Answers the hot request itself, or says it did not and leaves it untouched. */
export interface HotPath {
  /** True when the response was sent; false leaves `req`/`res` untouched for Fastify. */
  handle(req: IncomingMessage, res: ServerResponse): boolean;
  /** Sends every later request through Fastify (shutdown: its `Connection: close` handling). */
  disable(): void;
  /** Requests answered so far (for tests and benchmarks). */
  readonly served: number;
}

/**
 * `GET /predict/precomputed/{id}` is the one route whose answer is a map lookup; through Fastify's
 * routing, hooks and per-request child logger it cost ~3× a bare server (docs/benchmarks.md). This
 * answers only its success case — canonical id, no query string, no Origin header, the right key, a
 * loaded row — with the very bytes, headers, metrics sample and log line the Fastify route produces
 * (test/api/hot-path.test.ts compares them). Every other case (401, 404, 422, 503, CORS, HEAD, during
 * shutdown) falls through to Fastify, which stays the single source of those answers.
 */
export function createHotPath(options: HotPathOptions): HotPath {
  const { views, staticHeaders, log } = options;
  const expected = options.apiKey;
  // writeHead(status, object) on a response with no header set yet is Node's fast path: the object
  // goes straight to the header serialiser. setHeader per header, or a raw array (removeHeader +
  // appendHeader per entry), cost several µs more per response. The serialiser reads the object
  // synchronously, so one object is reused and only its two per-request fields change.
  const head: Record<string, string | number> = { ...staticHeaders };
  head['x-request-id'] = '';
  head['content-type'] = JSON_TYPE;
  head['content-length'] = 0;
  let enabled = expected !== undefined;
  let served = 0;

  const batch = createRequestBatch({ log, route: HOT_ROUTE });

  return {
    get served() {
      return served;
    },
    disable() {
      enabled = false;
      batch.flush();
    },
    handle(req, res) {
      if (!enabled || req.method !== 'GET' || req.headers.origin !== undefined) return false;
      const m = HOT_URL.exec(req.url ?? '');
      if (!m) return false;
      const key = req.headers['x-api-key'];
      if (typeof key !== 'string' || !keysMatch(key, expected as string)) return false;
      const id = Number(m[1]);
      if (id > Number.MAX_SAFE_INTEGER) return false;
      let body: Buffer | undefined;
      try {
        body = views.precomputedJson(id);
      } catch {
        return false; // no predictions file: Fastify answers the 503 with its detail
      }
      if (body === undefined) return false;

      const start = performance.now();
      const requestId = requestIdFrom(req.headers['x-request-id'], randomUUID);
      head['x-request-id'] = requestId;
      head['content-length'] = body.length;
      res.writeHead(200, head);
      res.end(body);
      served++;
      batch.add(requestId, performance.now() - start);
      return true;
    },
  };
}

/** Fastify's server options that its own factory applies to the node:http server. */
interface ServerTimeouts {
  keepAliveTimeout?: number;
  requestTimeout?: number;
  connectionTimeout?: number;
  maxRequestsPerSocket?: number;
}

/**
 * A `serverFactory` for Fastify: node:http with the hot path in front of Fastify's handler, and the
 * timeouts Fastify's own factory would set (a custom factory skips them).
 */
export function hotPathServerFactory(hot: HotPath) {
  return (handler: (req: IncomingMessage, res: ServerResponse) => void, opts: ServerTimeouts): Server => {
    const server = createServer((req, res) => {
      if (!hot.handle(req, res)) handler(req, res);
    });
    if (opts.keepAliveTimeout) server.keepAliveTimeout = opts.keepAliveTimeout;
    if (opts.requestTimeout !== undefined) server.requestTimeout = opts.requestTimeout;
    if (opts.connectionTimeout !== undefined) server.setTimeout(opts.connectionTimeout);
    if (opts.maxRequestsPerSocket && opts.maxRequestsPerSocket > 0)
      server.maxRequestsPerSocket = opts.maxRequestsPerSocket;
    return server;
  };
}
