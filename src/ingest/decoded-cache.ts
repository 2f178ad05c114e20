import type { Bucket } from '../domain/index.js';
import type { ObjectStore } from '../storage/index.js';

/** A decoded copy of a stored object, valid while the object keeps `etag`. */
export interface DecodedEntry<T> {
  etag: string;
  value: T;
  /** The object's bytes when the reader asked to keep them (e.g. to copy them into a run). */
  body: Buffer | null;
}

/** Per store (the real store object, not a run's view): `bucket/key#decoder` → entry. */
const entries = new WeakMap<ObjectStore, Map<string, DecodedEntry<unknown>>>();

/**
 * An entry neither read nor written for this long is dropped. The decoded odds and observations of a
 * 37k-match history are ~150 MB of heap: worth keeping across the reads of one ingest, re-prediction
 * or pipeline run, not for the life of a serving process that ingested once.
 */
export const DECODED_IDLE_MS = 60_000;

const usedAt = new WeakMap<DecodedEntry<unknown>, number>();
const sweepers = new WeakMap<Map<string, DecodedEntry<unknown>>, NodeJS.Timeout>();

/** Marks `entry` as used now and makes sure `cache` is swept of idle entries. */
function touch(cache: Map<string, DecodedEntry<unknown>>, entry: DecodedEntry<unknown>): void {
  usedAt.set(entry, Date.now());
  if (sweepers.has(cache)) return;
  const timer = setInterval(() => {
    const now = Date.now();
    for (const [k, e] of cache) if (now - (usedAt.get(e) ?? 0) >= DECODED_IDLE_MS) cache.delete(k);
    if (cache.size === 0) {
      clearInterval(timer);
      sweepers.delete(cache);
    }
  }, DECODED_IDLE_MS / 2);
  timer.unref();
  sweepers.set(cache, timer);
}

function slot(bucket: Bucket, key: string, decoder: string): string {
  return `${bucket}/${key}#${decoder}`;
}

function cacheOf(store: ObjectStore): Map<string, DecodedEntry<unknown>> {
  let m = entries.get(store);
  if (!m) {
    m = new Map();
    entries.set(store, m);
  }
  return m;
}

/**
 * The decoded object, decoded again only when its etag moved (the raw odds and observation files
 * change only with ingest, yet an incremental re-prediction reads them on every call). One `head`
 * per call; on a miss the `get`'s own etag is remembered, so a write between the two is never
 * masked. The value is shared between callers: treat it as read-only. Null when the object is absent.
 */
export async function readDecoded<T>(
  store: ObjectStore,
  bucket: Bucket,
  key: string,
  decoder: string,
  decode: (body: Buffer) => Promise<T>,
  options: { keepBody?: boolean } = {},
): Promise<DecodedEntry<T> | null> {
  const cache = cacheOf(store);
  const at = slot(bucket, key, decoder);
  const info = await store.head(bucket, key);
  if (!info) {
    cache.delete(at);
    return null;
  }
  const hit = cache.get(at) as DecodedEntry<T> | undefined;
  if (hit && hit.etag === info.etag && (hit.body !== null || !options.keepBody)) {
    touch(cache, hit);
    return hit;
  }
  const obj = await store.get(bucket, key);
  if (!obj) {
    cache.delete(at);
    return null;
  }
  const entry: DecodedEntry<T> = {
    etag: obj.etag,
    value: await decode(obj.body),
    body: options.keepBody ? obj.body : null,
  };
  cache.set(at, entry);
  touch(cache, entry);
  return entry;
}

/**
 * Records what a writer just stored (it holds the decoded value already): the next
 * {@link readDecoded} with that etag decodes nothing. Other decoders of the object are dropped.
 */
export function rememberDecoded<T>(
  store: ObjectStore,
  bucket: Bucket,
  key: string,
  decoder: string,
  entry: DecodedEntry<T>,
): void {
  const cache = cacheOf(store);
  const prefix = `${bucket}/${key}#`;
  for (const k of cache.keys()) if (k.startsWith(prefix)) cache.delete(k);
  cache.set(slot(bucket, key, decoder), entry as DecodedEntry<unknown>);
  touch(cache, entry as DecodedEntry<unknown>);
}
