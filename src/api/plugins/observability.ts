import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Logger } from '../../logger.js';
import { httpRequestDuration, httpRequestsTotal } from '../../metrics.js';
import { type AccessLog, loggerAccessLog } from './access-log.js';

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

/** Options of {@link registerObservability}. */
export interface ObservabilityOptions {
  /** Headers of every JSON response (the API security headers). Default none. */
  staticHeaders?: Record<string, string>;
  /** Headers of HTML documents (paths `isDocument` accepts). Default `staticHeaders`. */
  documentHeaders?: Record<string, string>;
  isDocument?: (url: string) => boolean;
  /**
   * Where the access lines go (`info`, one per request): a logger (the service's, `ctx.log`) or an
   * {@link AccessLog} such as `threadAccessLog`. Default: no lines.
   */
  accessLog?: Logger | AccessLog;
  /** While `draining`, responses carry `Connection: close` (see `BuildAppOptions.shutdown`). */
  shutdown?: { draining: boolean };
}

/**
 * Every response carries X-Request-Id and the security headers — `documentHeaders` on the paths
 * `isDocument` accepts (HTML pages), `staticHeaders` on every other (JSON); one metrics sample and
 * one access line per request, taken once per event-loop turn for all requests answered in it
 * ({@link RequestLedger}).
 */
export function registerObservability(app: FastifyInstance, options: ObservabilityOptions = {}): void {
  const staticHeaders = options.staticHeaders ?? {};
  const documentHeaders = options.documentHeaders ?? staticHeaders;
  const isDocument = options.isDocument ?? (() => false);
  const ledger = new RequestLedger(accessLogOf(options.accessLog));
  const shutdown = options.shutdown ?? { draining: false };
  // The request's start, taken here: reply.elapsedTime exists only when Fastify times every response
  // itself with 'finish' listeners (a logger or an onResponse hook), which cost more than this hook.
  app.decorateRequest('receivedAt', 0);
  // One hook sets the constant headers (security), the request id and the start: each hook costs a call.
  app.addHook('onRequest', (request, reply, done) => {
    request.receivedAt = performance.now();
    reply.headers(isDocument(request.url) ? documentHeaders : staticHeaders);
    reply.header('x-request-id', request.id);
    done();
  });
  // Counted when the response is handed to the socket: every answer (errors, 404s, preflights, HEAD)
  // passes here; its duration ends there (time to response head). A streamed body is counted when the
  // response closes instead, with its final status: a stream that fails before its head is answered
  // with an error, which passes here again. So does the error answer that replaces a send a later
  // onSend hook failed: it amends the request's row.
  app.decorateRequest('ledgerRow', NOT_COUNTED);
  app.addHook('onSend', (request, reply, payload, done) => {
    const row = request.ledgerRow;
    if (isStream(payload)) {
      if (row === NOT_COUNTED) {
        request.ledgerRow = ON_CLOSE;
        reply.raw.once('close', () => {
          if (request.ledgerRow === ON_CLOSE) request.ledgerRow = record(request, reply.raw.statusCode);
        });
      }
    } else if (row < 0) {
      request.ledgerRow = record(request, reply.statusCode);
    } else {
      // A row flushed already keeps its status: a second row would count the request twice.
      ledger.amend(row, reply.statusCode, sinceArrival(request));
    }
    if (shutdown.draining) reply.header('connection', 'close');
    done(null, payload);
  });
  const record = (request: FastifyRequest, status: number) =>
    ledger.add(request.id, request.method, request.routeOptions.url, status, sinceArrival(request));
  // Whatever is pending when the server stops is still counted and logged.
  app.addHook('onClose', async () => {
    ledger.flush();
    await ledger.close();
  });
}

declare module 'fastify' {
  interface FastifyRequest {
    /** `performance.now()` when the request reached the shared hooks. */
    receivedAt: number;
    /** The request's row in the {@link RequestLedger} (its number from `add`); negative until counted. */
    ledgerRow: number;
  }
}

/** `ledgerRow` before the request is counted, and while it waits for its streamed body to close. */
const NOT_COUNTED = -1;
const ON_CLOSE = -2;

function isStream(payload: unknown): boolean {
  return typeof (payload as { pipe?: unknown } | null)?.pipe === 'function';
}

/** Milliseconds since the shared onRequest hook saw the request (0 if it never did). */
function sinceArrival(request: FastifyRequest): number {
  return request.receivedAt > 0 ? performance.now() - request.receivedAt : 0;
}

function accessLogOf(target: Logger | AccessLog | undefined): AccessLog | undefined {
  if (target === undefined || 'close' in target) return target;
  return target.isLevelEnabled('info') ? loggerAccessLog(target) : undefined;
}

/**
 * The per-request bookkeeping of the shared hooks — the metrics sample and the access line —
 * recorded as five values and taken once per event-loop turn, in a `setImmediate` that runs before
 * the loop polls for I/O again (a batch holds at most one request per connection that was readable
 * in the turn). Done per request, inline between kernel sends and receives, the same prom-client
 * and pino calls cost several times what they cost in a tight loop (docs/benchmarks.md). A turn's
 * lines go to the {@link AccessLog} as one batch: one `info` line per request through the logger's
 * public API, on this thread or on the access-log thread.
 */
export class RequestLedger {
  private ids: string[] = [];
  private methods: string[] = [];
  private routes: (string | undefined)[] = [];
  private statuses: number[] = [];
  private elapsed: number[] = [];
  private n = 0;
  /** Rows taken by earlier flushes: row numbers run on across turns. */
  private flushed = 0;
  private scheduled = false;
  private readonly run = () => this.flush();

  constructor(private readonly log?: AccessLog) {}

  /**
   * Records one request; returns its row number, which {@link amend} takes until the row is flushed.
   */
  add(id: string, method: string, route: string | undefined, status: number, elapsedMs: number): number {
    const i = this.n++;
    this.ids[i] = id;
    this.methods[i] = method;
    this.routes[i] = route;
    this.statuses[i] = status;
    this.elapsed[i] = elapsedMs;
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.run);
    }
    return this.flushed + i;
  }

  /** Replaces the status and duration of row `row` if it is still pending (a flushed row stays). */
  amend(row: number, status: number, elapsedMs: number): void {
    const i = row - this.flushed;
    if (i < 0 || i >= this.n) return;
    this.statuses[i] = status;
    this.elapsed[i] = elapsedMs;
  }

  /** Takes what is pending now. */
  flush(): void {
    this.scheduled = false;
    const n = this.n;
    if (n === 0) return;
    this.n = 0;
    this.flushed += n;
    // A run of requests with the same method, route and status (most of a turn under load) is one
    // counter increment; each duration is still its own histogram sample.
    for (let start = 0, i = 1; i <= n; i++) {
      const method = this.methods[start]!;
      const route = this.routes[start];
      const status = this.statuses[start]!;
      if (i < n && this.methods[i] === method && this.routes[i] === route && this.statuses[i] === status)
        continue;
      const path = routeTemplate(route);
      recordRequests(method, path, status, this.elapsed, start, i);
      for (let j = start; j < i; j++) this.routes[j] = path;
      start = i;
    }
    this.log?.write({
      time: Date.now(),
      ids: this.ids.slice(0, n),
      methods: this.methods.slice(0, n),
      routes: this.routes.slice(0, n) as string[],
      statuses: this.statuses.slice(0, n),
      elapsed: this.elapsed.slice(0, n),
    });
  }

  /** Releases the access log (after a last {@link flush}). */
  async close(): Promise<void> {
    await this.log?.close();
  }
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

/**
 * Samples of `http_requests_total` and `http_request_duration_seconds` for one (method, route
 * template, status): the durations `elapsedMs[from..to)`.
 */
export function recordRequests(
  method: string,
  path: string,
  status: number,
  elapsedMs: ArrayLike<number>,
  from: number,
  to: number,
): void {
  counterOf(method, path, status).inc(to - from);
  for (let i = from; i < to; i++) httpRequestDuration.observe(elapsedMs[i]! / 1000);
}
