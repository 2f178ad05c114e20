import type { PredictionCache } from './prediction-cache.js';

/**
 * In-memory LRU with a TTL per entry (embedded mode), at most `maxEntries`; `now` is for tests. A Map
 * keeps insertion order, so re-inserting on read makes the first key the least recently used one.
 */
export function createMemoryCache({ maxEntries = 10_000, now = Date.now } = {}): PredictionCache {
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
      for (const oldest of entries.keys()) {
        if (entries.size <= maxEntries) break;
        entries.delete(oldest);
      }
    },
    async close(): Promise<void> {
      entries.clear();
    },
  };
}
