import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { type ErrorCode, MatchcastError } from '../domain/index.js';

export interface FetchBodyOptions {
  /** Validators of the last good body, sent as If-None-Match / If-Modified-Since. */
  etag?: string | null;
  lastModified?: string | null;
  /** Bound on one attempt (connect, headers and body), ms. Default 30 s. */
  timeoutMs?: number;
  /** Attempts in all (a 5xx, 429, network error, timeout or cut body is retried). Default 3. */
  attempts?: number;
  /** First retry delay, doubled each retry (±20 % jitter), ms. Default 1000. */
  backoffMs?: number;
}

const MAX_BYTES = 256 * 2 ** 20;

export type FetchedBody =
  | { status: 'not-modified' }
  | { status: 'ok'; body: Buffer; etag: string | null; lastModified: string | null };

/** True for an `http(s)://` URL; anything else is a local path (or `file://` URL). */
export function isRemote(url: string): boolean {
  return /^https?:\/\//i.test(url);
}

/** A local file: its size and modification time stand in for an ETag. */
async function readLocal(url: string, options: FetchBodyOptions): Promise<FetchedBody> {
  const file = url.startsWith('file://') ? fileURLToPath(url) : url;
  const info = await stat(file).catch(() => null);
  if (!info?.isFile()) throw new MatchcastError('MC_ERR_SOURCE_UNREACHABLE', `${file}: no such file`);
  const etag = `"${info.size}-${Math.round(info.mtimeMs)}"`;
  if (options.etag === etag) return { status: 'not-modified' };
  return { status: 'ok', body: await readFile(file), etag, lastModified: info.mtime.toUTCString() };
}

class Attempt extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly retry: boolean,
  ) {
    super(message);
  }
}

async function attempt(url: string, options: FetchBodyOptions): Promise<FetchedBody> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const headers: Record<string, string> = { 'accept-encoding': 'gzip, deflate' };
  if (options.etag) headers['if-none-match'] = options.etag;
  if (options.lastModified) headers['if-modified-since'] = options.lastModified;
  let res: Response;
  try {
    res = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs), redirect: 'follow' });
  } catch (err) {
    const e = err as Error;
    if (e.name === 'TimeoutError' || e.name === 'AbortError')
      throw new Attempt('MC_ERR_SOURCE_TIMEOUT', `no answer within ${timeoutMs} ms`, true);
    const cause = (e.cause as Error | undefined)?.message;
    throw new Attempt('MC_ERR_SOURCE_UNREACHABLE', `${e.message}${cause ? `: ${cause}` : ''}`, true);
  }
  if (!res.ok) await res.body?.cancel().catch(() => undefined);
  if (res.status === 304) return { status: 'not-modified' };
  if (!res.ok) {
    const retry = res.status >= 500 || res.status === 429 || res.status === 408;
    throw new Attempt('MC_ERR_SOURCE_UNREACHABLE', `HTTP ${res.status} ${res.statusText}`.trim(), retry);
  }
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > MAX_BYTES)
    throw new Attempt('MC_ERR_SOURCE_UNREACHABLE', `body of ${declared} bytes is over ${MAX_BYTES}`, false);
  let body: Buffer;
  try {
    body = Buffer.from(await res.arrayBuffer());
  } catch (err) {
    const e = err as Error;
    if (e.name === 'TimeoutError' || e.name === 'AbortError')
      throw new Attempt('MC_ERR_SOURCE_TIMEOUT', `body not received within ${timeoutMs} ms`, true);
    throw new Attempt('MC_ERR_SOURCE_TRUNCATED', `the body was cut off: ${e.message}`, true);
  }
  // Without a content coding the declared length is the body's: fewer bytes is a cut connection.
  if (!res.headers.get('content-encoding') && res.headers.has('content-length') && body.length !== declared)
    throw new Attempt('MC_ERR_SOURCE_TRUNCATED', `got ${body.length} of ${declared} bytes`, true);
  if (body.length > MAX_BYTES)
    throw new Attempt('MC_ERR_SOURCE_UNREACHABLE', `body over ${MAX_BYTES} bytes`, false);
  const etag = res.headers.get('etag');
  return { status: 'ok', body, etag, lastModified: res.headers.get('last-modified') };
}

/** A source's body, conditional on the last validators; transient faults are retried with backoff. */
export async function fetchBody(url: string, options: FetchBodyOptions = {}): Promise<FetchedBody> {
  if (!isRemote(url)) return readLocal(url, options);
  const attempts = Math.max(1, options.attempts ?? 3);
  const backoff = options.backoffMs ?? 1000;
  let last: Attempt | null = null;
  for (let i = 0; i < attempts; i++) {
    if (i > 0) {
      const delay = backoff * 2 ** (i - 1) * (0.8 + Math.random() * 0.4);
      await new Promise((r) => setTimeout(r, delay));
    }
    try {
      return await attempt(url, options);
    } catch (err) {
      if (!(err instanceof Attempt)) throw err;
      last = err;
      if (!err.retry) break;
    }
  }
  const a = last as Attempt;
  throw new MatchcastError(
    a.code,
    `${a.message}${attempts > 1 && a.retry ? ` (after ${attempts} attempts)` : ''}`,
  );
}
