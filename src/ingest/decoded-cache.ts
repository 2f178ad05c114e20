import type { Bucket } from '../domain/index.js';
import type { ObjectStore } from '../storage/index.js';

/** A decoded copy of a stored object, valid while the object keeps `etag`. */
export interface DecodedEntry<T> {
  etag: string;
  value: T;
  /** The object's bytes when the reader asked to keep them (e.g. to copy them into a run). */
  body: Buffer | null;
}

/** Idle entries are dropped: worth keeping across one run, not for a serving process's life. */
export const DECODED_IDLE_MS = 60_000;

/** One store's entries by `bucket/key#decoder`, with when each was last used, and its idle sweeper. */
interface Cache {
  slots: Map<string, { entry: DecodedEntry<unknown>; usedAt: number }>;
  sweeper: NodeJS.Timeout | null;
}

const caches = new WeakMap<ObjectStore, Cache>();

function cacheOf(store: ObjectStore): Cache {
  const cache = caches.get(store) ?? { slots: new Map(), sweeper: null };
  caches.set(store, cache);
  return cache;
}

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

/** Decoded again only when the etag moved; the `get`'s own etag is kept, so a later write is never masked. */
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

/** What a writer just stored, so the next read of that etag decodes nothing; other decoders are dropped. */
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
