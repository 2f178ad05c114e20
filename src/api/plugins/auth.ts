import type { FastifyInstance, FastifyRequest } from 'fastify';
import { MatchcastError } from '../../domain/index.js';

/** Options of the API-key check (spec §5). */
export interface AuthOptions {
  /** The configured key. Undefined makes every protected route answer 401. */
  apiKey: string | undefined;
  /** Also protect `/monitoring/*` (spec §5 rule 5, planned). Default `false`. */
  protectMonitoring?: boolean;
}

/**
 * Compares a supplied key with the expected one in time that depends on neither key's content nor
 * on how their lengths compare: every character of `expected` is compared with a character of
 * `supplied` (cycled, so every read is in range), differences are OR-ed into one word and nothing
 * exits early. The cost is one pass over the expected key (~26 ns for 32 characters), where hashing
 * both sides with SHA-256 cost 2–8 µs per request on the API's hot path (docs/benchmarks.md).
 */
export function keysMatch(supplied: string, expected: string): boolean {
  const n = supplied.length;
  if (n === 0) return false; // reveals only what the caller already knows: it sent nothing
  let diff = n ^ expected.length;
  for (let i = 0; i < expected.length; i++) diff |= expected.charCodeAt(i) ^ supplied.charCodeAt(i % n);
  return diff === 0;
}

/** True when the path (without query) needs the key: `/predict` and everything under it, by prefix. */
export function isProtectedPath(url: string, protectMonitoring: boolean): boolean {
  const path = url.split('?', 1)[0]!.toLowerCase();
  if (path === '/predict' || path.startsWith('/predict/')) return true;
  return protectMonitoring && (path === '/monitoring' || path.startsWith('/monitoring/'));
}

/**
 * Decides on the matched route template when there is one: the router percent-decodes paths, so
 * `/%70redict/…` reaches a /predict route and a check on the raw URL alone would let it through.
 */
function needsKey(request: FastifyRequest, protectMonitoring: boolean): boolean {
  const template = request.routeOptions.url;
  if (template !== undefined && isProtectedPath(template, protectMonitoring)) return true;
  let raw = request.url;
  try {
    raw = decodeURIComponent(raw);
  } catch {
    // undecodable: judge the raw form
  }
  return isProtectedPath(raw, protectMonitoring);
}

/** The check runs in `onRequest`, before body parsing and validation, so a 401 costs no work. */
export function registerAuth(app: FastifyInstance, options: AuthOptions): void {
  const protectMonitoring = options.protectMonitoring ?? false;
  // A callback hook avoids a promise per request on the hot path.
  const expected = options.apiKey;
  app.addHook('onRequest', (request: FastifyRequest, _reply, done) => {
    if (!needsKey(request, protectMonitoring)) return done();
    const header = request.headers['x-api-key'];
    if (expected === undefined || typeof header !== 'string' || !keysMatch(header, expected)) {
      return done(new MatchcastError('MC_ERR_UNAUTHORIZED'));
    }
    done();
  });
}
