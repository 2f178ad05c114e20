import type { PredictionCache } from './prediction-cache.js';

interface MemoryCacheOptions {
  /** Entries kept at most; the least recently used goes first. Default `10000`. */
  maxEntries?: number;
  /** Clock in ms, for tests. Default `Date.now`. */
  now?: () => number;
}

/**
 * In-memory LRU with a TTL per entry (embedded mode). A Map keeps insertion order, so re-inserting
 * on read makes the first key the least recently used one.
 */
export function createMemoryCache(options: MemoryCacheOptions = {}): PredictionCache {
  const maxEntries = options.maxEntries ?? 10_000;
  const now = options.now ?? Date.now;
  const entries = new Map<string, { value: unknown; expiresAt: number }>();
  return {
    kind: 'memory',
    async get<T>(key: string): Promise<T | undefined> {
      const entry = entries.get(key);
      if (!entry) return undefined;
      entries.delete(key);
      if (entry.expiresAt <= now()) return undefined;
      entries.set(key, entry);
      return structuredClone(entry.value) as T;
    },
    async set(key: string, value: unknown, ttlSeconds: number): Promise<void> {
      entries.delete(key);
      entries.set(key, { value: structuredClone(value), expiresAt: now() + ttlSeconds * 1000 });
      while (entries.size > maxEntries) {
        const oldest = entries.keys().next().value;
        if (oldest === undefined) break;
        entries.delete(oldest);
      }
    },
    async close(): Promise<void> {
      entries.clear();
    },
  };
}
