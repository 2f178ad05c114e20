import type { Bucket } from '../domain/index.js';
import type { ObjectStore } from '../storage/index.js';

/** A decoded copy of a stored object, valid while the object keeps `etag`. */
export interface DecodedEntry<T> {
  etag: string;
  value: T;
  /** The object's bytes when the reader asked to keep them (e.g. to copy them into a run). */
  body: Buffer | null;
}

/**
 * An entry neither read nor written for this long is dropped: worth keeping across one ingest,
 * re-prediction or pipeline run, not for the life of a serving process that ingested once.
 */
export const DECODED_IDLE_MS = 60_000;

/** One store's entries by `bucket/key#decoder`, with when each was last used, and its idle sweeper. */
interface Cache {
  slots: Map<string, { entry: DecodedEntry<unknown>; usedAt: number }>;
  sweeper: NodeJS.Timeout | null;
}

/** Per store (the real store object, not a run's view). */
const caches = new WeakMap<ObjectStore, Cache>();

function cacheOf(store: ObjectStore): Cache {
  let cache = caches.get(store);
  if (!cache) {
    cache = { slots: new Map(), sweeper: null };
    caches.set(store, cache);
  }
  return cache;
}

/** Keeps `entry` at `slot`, used now, and makes sure the cache is swept of idle entries. */
function keep(cache: Cache, slot: string, entry: DecodedEntry<unknown>): void {
  cache.slots.set(slot, { entry, usedAt: Date.now() });
  if (cache.sweeper) return;
  const timer = setInterval(() => {
    const now = Date.now();
    for (const [k, s] of cache.slots) if (now - s.usedAt >= DECODED_IDLE_MS) cache.slots.delete(k);
    if (cache.slots.size === 0) {
      clearInterval(timer);
      cache.sweeper = null;
    }
  }, DECODED_IDLE_MS / 2);
  timer.unref();
  cache.sweeper = timer;
}

/**
 * Decoded again only when the etag moved (re-predictions read the raw odds files on every call); the
 * `get`'s own etag is kept, so a write after the `head` is never masked. Shared: treat as read-only.
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
  const at = `${bucket}/${key}#${decoder}`;
  const info = await store.head(bucket, key);
  const hit = cache.slots.get(at);
  if (info && hit && hit.entry.etag === info.etag && (hit.entry.body !== null || !options.keepBody)) {
    hit.usedAt = Date.now();
    return hit.entry as DecodedEntry<T>;
  }
  const obj = info && (await store.get(bucket, key));
  if (!obj) {
    cache.slots.delete(at);
    return null;
  }
  const entry = { etag: obj.etag, value: await decode(obj.body), body: options.keepBody ? obj.body : null };
  keep(cache, at, entry);
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
  for (const k of cache.slots.keys()) if (k.startsWith(prefix)) cache.slots.delete(k);
  keep(cache, `${prefix}${decoder}`, entry);
}
