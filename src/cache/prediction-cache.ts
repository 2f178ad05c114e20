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

/**
 * `predict:{match_id}:{run_id}` then the stage and the features' run, so an entry only answers the
 * stage, model run and features it was computed for (never stale after a promotion or publication).
 */
export function predictionCacheKey(
  matchId: number,
  runId: string,
  scope: { stage: string; featuresRunId: string | null },
): string {
  return `predict:${matchId}:${runId}:${scope.stage}:${scope.featuresRunId ?? 'legacy'}`;
}
