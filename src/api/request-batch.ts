import pino from 'pino';
import type { Logger } from '../logger.js';
import { recordRequests } from './plugins/observability.js';

/** Options of {@link createRequestBatch}. */
export interface RequestBatchOptions {
  /** Where the request lines go; at `warn` or above none are written. */
  log: Logger;
  /** The route template every request of the batch answered (`GET`, status 200). */
  route: string;
}

/** Per-request bookkeeping of successful `GET <route>` requests, taken once per event-loop turn. */
export interface RequestBatch {
  /** Records one answered request; its metrics sample and log line follow within this turn. */
  add(requestId: string, elapsedMs: number): void;
  /** Takes what is pending now (shutdown); otherwise a `setImmediate` does. */
  flush(): void;
}

/**
 * The metrics sample and the request line of each answered request are taken once per event-loop
 * turn for the whole batch (up to one per open connection), in a `setImmediate` that runs before
 * the loop polls for I/O again. Done per request, inline, they cost more than the rest of the
 * precomputed hot path together on a 2-vCPU VM (docs/benchmarks.md): the batch runs prom-client
 * and the line writer in a tight loop and writes all lines with one call to the log destination.
 */
export function createRequestBatch(options: RequestBatchOptions): RequestBatch {
  const { log, route } = options;
  const logInfo = log.isLevelEnabled('info');
  const writeLines = logInfo ? accessLineWriter(log, route) : undefined;
  const ids: string[] = [];
  const elapsed: number[] = [];
  let pending = 0;
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    const n = pending;
    if (n === 0) return;
    pending = 0;
    recordRequests('GET', route, 200, elapsed, n);
    if (!logInfo) return;
    if (writeLines) writeLines(ids, elapsed, n);
    else
      for (let i = 0; i < n; i++)
        log.info(
          { reqId: ids[i], request_id: ids[i], method: 'GET', route, status: 200, ms: elapsed[i] },
          'request',
        );
  };
  return {
    add(requestId, elapsedMs) {
      ids[pending] = requestId;
      elapsed[pending] = elapsedMs;
      pending++;
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flush,
  };
}

type LineWriter = (ids: readonly string[], elapsedMs: readonly number[], n: number) => void;

/**
 * Writes request lines of `GET <route>` → 200 — byte for byte what `log.info({ reqId, request_id,
 * method, route, status, ms }, 'request')` writes — as one string to the logger's destination: one write
 * (one syscall with pino's default destination) per batch instead of one per request. Undefined
 * when the logger is configured in a way that would change the line (custom formatters, time,
 * message key, mixin, nesting); the caller then logs each line through pino.
 */
export function accessLineWriter(log: Logger, route: string): LineWriter | undefined {
  const l = log as unknown as Record<symbol, unknown>;
  const s = pino.symbols;
  const stream = l[s.streamSym] as { write?: (chunk: string) => unknown } | undefined;
  const chindings = l[s.chindingsSym];
  const formatters = l[s.formattersSym] as
    | { level?: (label: string, n: number) => object; log?: (o: object) => object }
    | undefined;
  const probe = {};
  const standard =
    typeof stream?.write === 'function' &&
    typeof chindings === 'string' &&
    l[s.messageKeySym] === 'msg' &&
    l[s.timeSym] === pino.stdTimeFunctions.epochTime &&
    l[s.mixinSym] === undefined &&
    (l[s.nestedKeySym] ?? null) === null &&
    JSON.stringify(formatters?.level?.('info', log.levels.values.info!)) ===
      `{"level":${log.levels.values.info}}` &&
    (formatters?.log === undefined || formatters.log(probe) === probe);
  if (!standard) return undefined;
  const head = `{"level":${log.levels.values.info},"time":`;
  const fields = `","method":"GET","route":"${route}","status":200,"ms":`;
  return (ids, elapsedMs, n) => {
    // Request ids are either randomUUID()s or passed requestIdFrom's [A-Za-z0-9._-] check: no escaping needed.
    const time = Date.now();
    let out = '';
    for (let i = 0; i < n; i++) {
      out += `${head}${time}${chindings},"reqId":"${ids[i]}","request_id":"${ids[i]}${fields}${elapsedMs[i]},"msg":"request"}\n`;
    }
    stream!.write!(out);
  };
}
