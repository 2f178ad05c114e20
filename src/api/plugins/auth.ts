import * as crypto from 'node:crypto';
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
  return timingSafeEqual(keyDigest(supplied), keyDigest(expected));
}

/** SHA-256 of a key: both sides of every comparison are hashed so that their lengths always match. */
export function keyDigest(key: string): Buffer {
  // crypto.hash (Node ≥ 20.12) is the one-shot form: half the cost of a Hash object per request.
  return oneShot ? oneShot('sha256', key, 'buffer') : createHash('sha256').update(key, 'utf8').digest();
}

const oneShot = (crypto as { hash?: (alg: string, data: string, enc: 'buffer') => Buffer }).hash;

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
  // The expected digest is computed once; a callback hook avoids a promise per request on the hot path.
  const expected = options.apiKey === undefined ? undefined : keyDigest(options.apiKey);
  app.addHook('onRequest', (request: FastifyRequest, _reply, done) => {
    if (!needsKey(request, protectMonitoring)) return done();
    const header = request.headers['x-api-key'];
    if (
      expected === undefined ||
      typeof header !== 'string' ||
      !timingSafeEqual(keyDigest(header), expected)
    ) {
      return done(new MatchcastError('MC_ERR_UNAUTHORIZED'));
    }
    done();
  });
}
