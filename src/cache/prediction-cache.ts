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

/** What else a cached live answer depends on besides the match and the model run. */
interface PredictionCacheScope {
  /** The stage asked for (`champion`, `challenger`): a challenger's answer never serves a champion request. */
  stage: string;
  /** The published pipeline run whose features answered (null: legacy files, no run published). */
  featuresRunId: string | null;
}

/**
 * `predict:{match_id}:{run_id}` then the stage and the features' run, so an entry only answers the
 * stage, model run and features it was computed for (never stale after a promotion or publication).
 */
export function predictionCacheKey(matchId: number, runId: string, scope?: PredictionCacheScope): string {
  const base = `predict:${matchId}:${runId}`;
  return scope ? `${base}:${scope.stage}:${scope.featuresRunId ?? 'legacy'}` : base;
}
