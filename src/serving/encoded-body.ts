import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { brotliCompressSync, createGunzip, gunzipSync, gzipSync } from 'node:zlib';

/** A JSON body serialised once per load, with its compressed variants and validators. */
export interface EncodedBody {
  /** UTF-8 JSON, or null above `identityMaxBytes`: identity responses then stream from `gzip`. */
  identity: Buffer | null;
  size: number;
  gzip: Buffer;
  br: Buffer;
  /** Strong ETags differing only by a suffix: one content, three codings. */
  etags: { identity: string; gzip: string; br: string };
}

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

/** Accept-Encoding (RFC 9110 §12.5.3): br, then gzip, when accepted with q > 0 (by name or `*`). */
export function negotiateEncoding(header: string | undefined): ContentCoding {
  const qs = new Map<string, number>();
  for (const part of header?.split(',') ?? []) {
    const [name, ...params] = part.split(';');
    const q = params.findLast((p) => p.split('=')[0].trim().toLowerCase() === 'q')?.split('=')[1];
    const n = q === undefined ? 1 : Number(q);
    qs.set(
      name
        .trim()
        .toLowerCase()
        .replace(/^x-gzip$/, 'gzip'),
      Number.isFinite(n) ? n : 0,
    );
  }
  const star = qs.get('*');
  if ((qs.get('br') ?? star ?? 0) > 0) return 'br';
  return (qs.get('gzip') ?? star ?? 0) > 0 ? 'gzip' : 'identity';
}

/**
 * If-None-Match names this content in any of its codings (one content, so the client's copy is current)
 * or is `*`; weak tags compare by their opaque part (RFC 9110 §13.1.2).
 */
export function notModified(ifNoneMatch: string | undefined, body: EncodedBody): boolean {
  const trimmed = ifNoneMatch?.trim();
  if (!trimmed) return false;
  const tags = Object.values(body.etags);
  return trimmed === '*' || trimmed.split(',').some((raw) => tags.includes(raw.trim().replace(/^W\//, '')));
}
