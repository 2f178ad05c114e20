import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import { MatchcastError } from '../../domain/index.js';
import { errorResponses } from '../../schemas/index.js';

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
 * For a request no route matched: the router percent-decodes paths, so judge the decoded URL too
 * (`/%70redict/…` is a /predict path).
 */
export function unmatchedNeedsKey(request: FastifyRequest, protectMonitoring: boolean): boolean {
  let raw = request.url;
  try {
    raw = decodeURIComponent(raw);
  } catch {
    // undecodable: judge the raw form
  }
  return isProtectedPath(raw, protectMonitoring);
}

/** True when the request carries the configured key (constant-time comparison). */
export function hasValidKey(request: FastifyRequest, expected: string | undefined): boolean {
  const header = request.headers['x-api-key'];
  return expected !== undefined && typeof header === 'string' && keysMatch(header, expected);
}

function hooksOf<T>(value: T | T[] | undefined): T[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/**
 * The key check is a route-level `onRequest` hook of every route whose template is protected
 * (decided once, at registration): it runs before body parsing and validation, so a 401 costs no
 * work, and open routes pay nothing for it. The route's OpenAPI entry gets `ApiKeyAuth` and its
 * 401 response. Unmatched URLs under a protected prefix answer 401 from the not-found handler
 * (see `unmatchedNeedsKey`). Register before the routes.
 */
export function registerAuth(app: FastifyInstance, options: AuthOptions): void {
  const protectMonitoring = options.protectMonitoring ?? false;
  const expected = options.apiKey;
  // A callback hook avoids a promise per request.
  const checkKey: onRequestHookHandler = (request, _reply, done) => {
    if (hasValidKey(request, expected)) return done();
    done(new MatchcastError('MC_ERR_UNAUTHORIZED'));
  };
  app.addHook('onRoute', (route) => {
    if (!isProtectedPath(route.url, protectMonitoring)) return;
    route.onRequest = [checkKey, ...hooksOf(route.onRequest)];
    const schema = route.schema as
      | { hide?: boolean; security?: unknown; response?: Record<string, unknown> }
      | undefined;
    if (schema && !schema.hide) {
      schema.security ??= [{ ApiKeyAuth: [] }];
      schema.response = { ...errorResponses('MC_ERR_UNAUTHORIZED'), ...schema.response };
    }
  });
}
