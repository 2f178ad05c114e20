// The prediction cache port (spec §3.3), never a source of truth: every method swallows store
// failures (get → undefined, set → no-op) so a cache that is down is bypassed silently.
export interface PredictionCache {
  readonly kind: 'redis' | 'memory';
  get<T = unknown>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown, ttlSeconds: number): Promise<void>;
  close(): Promise<void>;
}

// `predict:{match_id}:{run_id}:{stage}:{features run}`: an entry only answers what it was computed
// for, so it is never stale after a promotion or publication.
export function predictionCacheKey(
  matchId: number,
  runId: string,
  scope: { stage: string; featuresRunId: string | null },
): string {
  return `predict:${matchId}:${runId}:${scope.stage}:${scope.featuresRunId ?? 'legacy'}`;
}
