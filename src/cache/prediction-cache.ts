/**
 * The prediction cache port (spec §3.3). An optimisation, never a source of truth: every method
 * swallows store failures (get → undefined, set → no-op) so a cache that is down is bypassed silently.
 */
export interface PredictionCache {
  readonly kind: 'redis' | 'memory';
  get<T = unknown>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown, ttlSeconds: number): Promise<void>;
  close(): Promise<void>;
}

/** The cache key of a live prediction: changes with the run id, so a promotion is never served stale forever. */
export function predictionCacheKey(matchId: number, runId: string): string {
  return `predict:${matchId}:${runId}`;
}
