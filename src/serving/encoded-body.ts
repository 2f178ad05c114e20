import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { brotliCompressSync, createGunzip, gunzipSync, gzipSync } from 'node:zlib';
import type { EncodedBody } from './types.js';

/** Reload-time brotli quality: the default 11 takes seconds on large bodies, 5 is close in size. */
export const BROTLI_QUALITY = 5;

/** Default largest body whose identity copy stays in memory: larger ones keep only gzip and br. */
export const IDENTITY_MAX_BYTES = 8 * 1024 * 1024;

/** The identity bytes, decompressed from gzip when they are not held (tools and tests; blocks). */
export function identityOf(body: EncodedBody): Buffer {
  return body.identity ?? gunzipSync(body.gzip);
}

/** The identity body as a stream; decompression runs on the libuv pool, off the event loop. */
export function identityStream(body: EncodedBody): Readable {
  if (body.identity) return Readable.from([body.identity]);
  const gunzip = createGunzip();
  gunzip.end(body.gzip);
  return gunzip;
}

/** ETags from the SHA-256 of the identity body (shared with the streaming encoder). */
export function etagsFromDigest(digest: Buffer): EncodedBody['etags'] {
  const hash = digest.toString('base64url').slice(0, 32);
  return { identity: `"${hash}"`, gzip: `"${hash}-gz"`, br: `"${hash}-br"` };
}

/** Identity, gzip and brotli variants of a tiny constant body (e.g. `[]`) with their strong ETags. */
export function encodeBodySync(json: string): EncodedBody {
  const identity = Buffer.from(json, 'utf8');
  return {
    identity,
    size: identity.length,
    gzip: gzipSync(identity),
    br: brotliCompressSync(identity),
    etags: etagsFromDigest(createHash('sha256').update(identity).digest()),
  };
}

export type ContentCoding = 'br' | 'gzip' | 'identity';

/**
 * Picks the coding from an Accept-Encoding header (RFC 9110 §12.5.3): br, then gzip, when the
 * client accepts them with q > 0 (explicitly or through `*`); identity otherwise.
 */
export function negotiateEncoding(header: string | undefined): ContentCoding {
  if (!header) return 'identity';
  let br: number | undefined;
  let gz: number | undefined;
  let star: number | undefined;
  for (const part of header.split(',')) {
    const [rawName, ...params] = part.split(';');
    const name = rawName.trim().toLowerCase();
    let q = 1;
    for (const p of params) {
      const [k, v] = p.split('=');
      if (k.trim().toLowerCase() === 'q') {
        const n = Number(v);
        q = Number.isFinite(n) ? n : 0;
      }
    }
    if (name === 'br') br = q;
    else if (name === 'gzip' || name === 'x-gzip') gz = q;
    else if (name === '*') star = q;
  }
  if ((br ?? star ?? 0) > 0) return 'br';
  if ((gz ?? star ?? 0) > 0) return 'gzip';
  return 'identity';
}

/**
 * True when If-None-Match names this content (any of its three codings: they carry the same
 * data, so the client's copy is current whichever it holds) or is `*`. Weak tags compare by their
 * opaque part, as RFC 9110 §13.1.2 asks for If-None-Match.
 */
export function notModified(ifNoneMatch: string | undefined, body: EncodedBody): boolean {
  if (!ifNoneMatch) return false;
  const trimmed = ifNoneMatch.trim();
  if (trimmed === '*') return true;
  const { identity, gzip: gz, br } = body.etags;
  for (const raw of trimmed.split(',')) {
    let tag = raw.trim();
    if (tag.startsWith('W/')) tag = tag.slice(2);
    if (tag === identity || tag === gz || tag === br) return true;
  }
  return false;
}
