import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';
import { type Bucket, MatchcastError } from '../domain/index.js';
import { validateBucket, validateKey } from './keys.js';

interface SignedObject {
  bucket: string;
  key: string;
  secret: string;
  now?: Date;
}

interface SignObjectUrlOptions extends SignedObject {
  /** Public base URL of the API (config `PUBLIC_BASE_URL`). */
  baseUrl: string;
  bucket: Bucket;
  /** Lifetime of the link, seconds (at least 1). */
  ttlSeconds: number;
}

/** `expires` (unix seconds) and `signature` (hex): the query parameters as received. */
type VerifySignedUrlOptions = SignedObject & { expires: unknown; signature: unknown };

function mac(secret: string, bucket: string, key: string, expires: number): Buffer {
  // Neither a bucket nor a valid key can hold a newline, so the message is unambiguous.
  return createHmac('sha256', secret).update(`matchcast-url-v1\n${bucket}\n${key}\n${expires}`).digest();
}

/**
 * A link for the folder store, served by `GET /files/<bucket>/<key>?expires=<unix s>&signature=<hex>`: the
 * HMAC-SHA256 covers bucket, key and expiry, so a link can be neither extended nor pointed elsewhere.
 */
export function signObjectUrl(options: SignObjectUrlOptions): string {
  const { baseUrl, bucket, key, secret } = options;
  validateBucket(bucket);
  validateKey(key);
  if (!Number.isFinite(options.ttlSeconds) || options.ttlSeconds < 1) {
    throw new MatchcastError('MC_ERR_VALIDATION', 'ttlSeconds must be at least 1');
  }
  const now = (options.now ?? new Date()).getTime();
  const expires = Math.floor(now / 1000) + Math.ceil(options.ttlSeconds);
  const signature = mac(secret, bucket, key, expires).toString('hex');
  // Each segment of the key percent-encoded, `/` kept.
  const keyPath = key.split('/').map(encodeURIComponent).join('/');
  return `${baseUrl.replace(/\/+$/, '')}/files/${bucket}/${keyPath}?expires=${expires}&signature=${signature}`;
}

/** Why a signed link was refused; callers must not reveal it to the client. */
type SignedUrlVerdict =
  | { ok: true; expiresAt: Date }
  | { ok: false; reason: 'malformed' | 'bad-signature' | 'expired' };

/**
 * Checks a signed link in constant time (signature compared with `timingSafeEqual`). The signature
 * is checked before the expiry, so a forged link is never told apart from an expired one by timing.
 */
export function verifySignedUrl(options: VerifySignedUrlOptions): SignedUrlVerdict {
  const { bucket, key, expires, signature, secret } = options;
  const expStr = typeof expires === 'string' || typeof expires === 'number' ? String(expires) : '';
  if (!/^\d{1,12}$/.test(expStr) || typeof signature !== 'string' || !/^[0-9a-fA-F]{64}$/.test(signature))
    return { ok: false, reason: 'malformed' };
  const exp = Number(expStr);
  const expected = mac(secret, bucket, key, exp);
  const given = Buffer.from(signature, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return { ok: false, reason: 'bad-signature' };
  const now = (options.now ?? new Date()).getTime();
  if (exp * 1000 <= now) return { ok: false, reason: 'expired' };
  return { ok: true, expiresAt: new Date(exp * 1000) };
}

const secretCache = new Map<string, string>();

/**
 * `URL_SIGNING_SECRET`, else `<DATA_DIR>/url-signing.secret` (32 random bytes as hex, mode 0600), created
 * exclusively (temp file + link) on first use, so processes starting together agree on one.
 */
export function resolveUrlSigningSecret(config: Pick<Config, 'urlSigningSecret' | 'dataDir'>): string {
  if (config.urlSigningSecret) return config.urlSigningSecret;
  const file = path.join(config.dataDir, 'url-signing.secret');
  const cached = secretCache.get(file);
  if (cached) return cached;
  let secret: string;
  try {
    secret = readFileSync(file, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    mkdirSync(config.dataDir, { recursive: true });
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    writeFileSync(tmp, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    chmodSync(tmp, 0o600); // the umask may have dropped bits; never widen, only make sure
    try {
      linkSync(tmp, file);
    } catch (linkErr) {
      if ((linkErr as NodeJS.ErrnoException).code !== 'EEXIST') throw linkErr;
    } finally {
      unlinkSync(tmp);
    }
    secret = readFileSync(file, 'utf8').trim();
  }
  if (secret.length < 32) {
    throw new MatchcastError('MC_ERR_CONFIG', `${file} holds no usable secret (expected 64 hex characters)`);
  }
  secretCache.set(file, secret);
  return secret;
}
