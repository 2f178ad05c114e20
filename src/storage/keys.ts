import { BUCKETS, type Bucket, MatchcastError } from '../domain/index.js';

/** Longest key accepted, in UTF-8 bytes (the S3 limit). */
const MAX_KEY_BYTES = 1024;
/** Longest path segment, in UTF-8 bytes: leaves room under the 255-byte file-name limit for temp names. */
const MAX_SEGMENT_BYTES = 200;
/** Segments reserved for the stores' bookkeeping (temp files, old versions' objects); never listed. */
export const RESERVED_SEGMENT_PREFIX = '.mc-';

// C0 controls, DEL and C1 controls.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function invalid(key: unknown, reason: string): never {
  const shown =
    typeof key === 'string' ? JSON.stringify(key.length > 80 ? `${key.slice(0, 80)}…` : key) : typeof key;
  throw new MatchcastError('MC_ERR_INVALID_KEY', `Invalid object key ${shown}: ${reason}`);
}

function checkCommon(key: string): void {
  if (Buffer.byteLength(key, 'utf8') > MAX_KEY_BYTES) invalid(key, `longer than ${MAX_KEY_BYTES} bytes`);
  if (key.startsWith('/')) invalid(key, 'absolute path');
  if (key.includes('\\')) invalid(key, 'backslash');
  if (CONTROL.test(key)) invalid(key, 'control character');
  if (LONE_SURROGATE.test(key)) invalid(key, 'lone surrogate');
}

function checkSegment(seg: string, what: unknown): void {
  if (seg === '') invalid(what, 'empty path segment');
  if (seg === '.' || seg === '..') invalid(what, `"${seg}" segment`);
  if (seg.startsWith(RESERVED_SEGMENT_PREFIX))
    invalid(what, `segments starting with "${RESERVED_SEGMENT_PREFIX}" are reserved`);
  if (Buffer.byteLength(seg, 'utf8') > MAX_SEGMENT_BYTES)
    invalid(what, `segment longer than ${MAX_SEGMENT_BYTES} bytes`);
}

/** Validates an object key for every driver (MC_ERR_INVALID_KEY); `%2e%2e` is a literal name, not `..`. */
export function validateKey(key: unknown): string {
  if (typeof key !== 'string') invalid(key, 'not a string');
  if (key === '') invalid(key, 'empty');
  checkCommon(key);
  for (const seg of key.split('/')) checkSegment(seg, key);
  return key;
}

/** Validates a listing prefix: a key that may be empty, end with `/`, or end in a partial segment. */
export function validatePrefix(prefix: unknown): string {
  if (prefix === undefined || prefix === '') return '';
  if (typeof prefix !== 'string') invalid(prefix, 'not a string');
  checkCommon(prefix);
  const segs = prefix.split('/');
  const last = segs.pop() ?? '';
  for (const seg of segs) checkSegment(seg, prefix);
  if (last === '.' || last === '..') invalid(prefix, `"${last}" segment`);
  return prefix;
}

/** True when some segment of a key is reserved (bookkeeping objects that listings skip). */
export function isReservedKey(key: string): boolean {
  return key.split('/').some((s) => s.startsWith(RESERVED_SEGMENT_PREFIX));
}

/** Byte-wise (UTF-8) key order, the order S3 lists in. */
export function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

export function validateBucket(bucket: string): Bucket {
  if (!(BUCKETS as readonly string[]).includes(bucket)) {
    throw new MatchcastError('MC_ERR_INVALID_KEY', `Unknown bucket ${JSON.stringify(bucket)}`);
  }
  return bucket as Bucket;
}
