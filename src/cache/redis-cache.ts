import { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import type { PredictionCache } from './prediction-cache.js';

// No offline queue and a timeout on every call: a down Redis fails at once and is swallowed (spec §3.3).
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
  // One line per outage, not one per request.
  let warned = false;
  const warn = (err: unknown) => {
    if (!warned)
      log?.warn(
        { err: err instanceof Error ? err.message : String(err) },
        'prediction cache unavailable; bypassing',
      );
    warned = true;
  };
  redis.on('error', warn);
  redis.on('ready', () => {
    if (warned) log?.info('prediction cache reachable again');
    warned = false;
  });
  // Not ready or failing: a miss, a no-op.
  const attempt = async <T>(fn: () => Promise<T>, fallback: T): Promise<T> => {
    if (redis.status !== 'ready') return fallback;
    try {
      return await fn();
    } catch (err) {
      warn(err);
      return fallback;
    }
  };
  return {
    kind: 'redis',
    get: <T>(key: string) =>
      attempt(async () => {
        const raw = await redis.get(key);
        return raw === null ? undefined : (JSON.parse(raw) as T);
      }, undefined),
    set: (key: string, value: unknown, ttlSeconds: number) =>
      attempt(async () => {
        await redis.set(key, JSON.stringify(value), 'EX', Math.max(1, Math.round(ttlSeconds)));
      }, undefined),
    async close(): Promise<void> {
      redis.disconnect();
    },
  };
}
