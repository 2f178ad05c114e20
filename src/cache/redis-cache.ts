import { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import type { PredictionCache } from './prediction-cache.js';

/**
 * Redis-backed prediction cache, an optimisation (spec §3.3): no offline queue and a timeout on every
 * call, so a down Redis fails at once and is swallowed (get → miss, set → no-op).
 */
export function createRedisCache(
  url: string,
  log?: Logger,
  options: { keyPrefix?: string } = {},
): PredictionCache {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    // Bounds on connecting and on one GET/SET, ms.
    connectTimeout: 500,
    commandTimeout: 250,
    maxRetriesPerRequest: 0,
    keyPrefix: options.keyPrefix,
    lazyConnect: false,
    // Keep trying in the background so the cache comes back by itself, but not in a tight loop.
    retryStrategy: (times) => Math.min(times * 200, 2000),
  });
  let warned = false;
  const warn = (err: unknown) => {
    // One line per outage, not one per request.
    if (warned) return;
    warned = true;
    log?.warn(
      { err: err instanceof Error ? err.message : String(err) },
      'prediction cache unavailable; bypassing',
    );
  };
  redis.on('error', warn);
  redis.on('ready', () => {
    if (warned) log?.info('prediction cache reachable again');
    warned = false;
  });
  return {
    kind: 'redis',
    async get<T>(key: string): Promise<T | undefined> {
      if (redis.status !== 'ready') return undefined;
      try {
        const raw = await redis.get(key);
        return raw === null ? undefined : (JSON.parse(raw) as T);
      } catch (err) {
        warn(err);
        return undefined;
      }
    },
    async set(key: string, value: unknown, ttlSeconds: number): Promise<void> {
      if (redis.status !== 'ready') return;
      try {
        await redis.set(key, JSON.stringify(value), 'EX', Math.max(1, Math.round(ttlSeconds)));
      } catch (err) {
        warn(err);
      }
    },
    async close(): Promise<void> {
      redis.disconnect();
    },
  };
}
