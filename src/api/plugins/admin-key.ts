import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { MatchcastError } from '../../domain/index.js';

/** The header of the admin credential. */
export const ADMIN_KEY_HEADER = 'x-admin-key';

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/**
 * Compares a supplied admin key with the configured one in constant time: both are hashed first, so
 * the comparison sees two 32-byte digests whatever the keys' lengths (admin calls are rare; the
 * hashing costs microseconds, unlike on the API key's hot path).
 */
export function adminKeyMatches(supplied: string, expected: string): boolean {
  return supplied.length > 0 && timingSafeEqual(digest(supplied), digest(expected));
}

/**
 * Throws `MC_ERR_ADMIN_UNAUTHORIZED` unless the request carries the admin key. Where it comes from
 * (loopback, a reverse proxy on the same host, anywhere) counts for nothing. The key is read from
 * `X-Admin-Key`; a client that sends one key header only (the CLI hand-off) may carry the admin key in
 * `X-API-Key`: it is still compared with the admin key, so the API key alone never passes.
 */
export function checkAdminKey(request: FastifyRequest, expected: string): void {
  for (const name of [ADMIN_KEY_HEADER, 'x-api-key']) {
    const value = request.headers[name];
    if (typeof value === 'string' && adminKeyMatches(value, expected)) return;
  }
  throw new MatchcastError('MC_ERR_ADMIN_UNAUTHORIZED');
}
