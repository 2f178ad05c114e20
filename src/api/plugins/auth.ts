import { createHash, timingSafeEqual } from 'node:crypto';
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
 * Compares two keys in time that depends on neither content nor length: both sides are hashed to
 * 32 bytes first, so `timingSafeEqual` always compares equal-length buffers.
 */
export function keysMatch(supplied: string, expected: string): boolean {
  const a = createHash('sha256').update(supplied, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

/** True when the path (without query) needs the key: `/predict` and everything under it, by prefix. */
export function isProtectedPath(url: string, protectMonitoring: boolean): boolean {
  const path = url.split('?', 1)[0]!.toLowerCase();
  if (path === '/predict' || path.startsWith('/predict/')) return true;
  return protectMonitoring && (path === '/monitoring' || path.startsWith('/monitoring/'));
}

/** The check runs in `onRequest`, before body parsing and validation, so a 401 costs no work. */
export function registerAuth(app: FastifyInstance, options: AuthOptions): void {
  const protectMonitoring = options.protectMonitoring ?? false;
  app.addHook('onRequest', async (request: FastifyRequest) => {
    if (!isProtectedPath(request.url, protectMonitoring)) return;
    const header = request.headers['x-api-key'];
    const supplied = Array.isArray(header) ? undefined : header;
    if (!options.apiKey || supplied === undefined || !keysMatch(supplied, options.apiKey)) {
      throw new MatchcastError('MC_ERR_UNAUTHORIZED');
    }
  });
}
