import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { createMemoryCache } from './memory-cache.js';
import type { PredictionCache } from './prediction-cache.js';
import { createRedisCache } from './redis-cache.js';

/** Redis when `CACHE_URL` (default `REDIS_URL`) is set, else the in-memory LRU (embedded mode). */
export function createPredictionCache(config: Config, log: Logger): PredictionCache {
  if (config.cacheUrl) return createRedisCache(config.cacheUrl, log);
  return createMemoryCache();
}
