import crypto from 'node:crypto';
import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import { MatchcastError } from '../../domain/index.js';
import { errorResponses } from '../../schemas/index.js';

/** SHA-256 of a key: both sides of the comparison have 32 bytes whatever the keys' lengths. */
const digest = (key: string) => crypto.hash('sha256', key, 'buffer');

/** Constant-time over the digests: neither content nor length of a key shows in the time taken. */
export function keyMatcher(expected: string | undefined): (supplied: unknown) => boolean {
  if (!expected) return () => false;
  const want = digest(expected);
  return (supplied) => typeof supplied === 'string' && crypto.timingSafeEqual(digest(supplied), want);
}

/** True when the path (without query) needs the key: `/predict` and everything under it, by prefix. */
export function isProtectedPath(url: string, protectMonitoring: boolean): boolean {
  const path = url.split('?', 1)[0]!.toLowerCase();
  if (path === '/predict' || path.startsWith('/predict/')) return true;
  return protectMonitoring && (path === '/monitoring' || path.startsWith('/monitoring/'));
}

/** For a request no route matched: the router percent-decodes paths, so `/%70redict/…` is protected too. */
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
  return keyMatcher(expected)(request.headers['x-api-key']);
}

/** A per-route `onRequest` hook, decided at registration: a 401 costs no parsing, open routes pay nothing. */
export function registerAuth(
  app: FastifyInstance,
  // Without a key every protected route answers 401; `/monitoring/*` is protected on request (spec §5).
  { apiKey, protectMonitoring = false }: { apiKey: string | undefined; protectMonitoring?: boolean },
): void {
  const matches = keyMatcher(apiKey);
  const checkKey: onRequestHookHandler = (request, _reply, done) => {
    if (matches(request.headers['x-api-key'])) return done();
    done(new MatchcastError('MC_ERR_UNAUTHORIZED'));
  };
  app.addHook('onRoute', (route) => {
    if (!isProtectedPath(route.url, protectMonitoring)) return;
    route.onRequest = [checkKey, ...[route.onRequest ?? []].flat()];
    const schema = route.schema as
      | { hide?: boolean; security?: unknown; response?: Record<string, unknown> }
      | undefined;
    if (schema && !schema.hide) {
      schema.security ??= [{ ApiKeyAuth: [] }];
      schema.response = { ...errorResponses('MC_ERR_UNAUTHORIZED'), ...schema.response };
    }
  });
}
