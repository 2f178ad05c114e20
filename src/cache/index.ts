import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { createMemoryCache } from './memory-cache.js';
import type { PredictionCache } from './prediction-cache.js';

export { type PredictionCache, predictionCacheKey } from './prediction-cache.js';

/** Redis when `CACHE_URL` (default `REDIS_URL`) is set, else the in-memory LRU (embedded mode). */
export async function createPredictionCache(config: Config, log: Logger): Promise<PredictionCache> {
  // ioredis is loaded only here: an embedded process never pays for it.
  if (config.cacheUrl) return (await import('./redis-cache.js')).createRedisCache(config.cacheUrl, log);
  return createMemoryCache();
}
