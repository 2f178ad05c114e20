/** Object-store buckets and well-known keys (ARCHITECTURE §3). */
export const BUCKETS = ['raw-data', 'features', 'models', 'predictions', 'reports'] as const;
export type Bucket = (typeof BUCKETS)[number];

export const KEYS = {
  odds: { bucket: 'raw-data', key: 'odds.parquet' },
  features: { bucket: 'features', key: 'match_features.parquet' },
  predictions: { bucket: 'predictions', key: 'predictions.parquet' },
  backtest: { bucket: 'predictions', key: 'backtest.parquet' },
  backtestMetrics: { bucket: 'predictions', key: 'backtest_metrics.json' },
  roiByRegion: { bucket: 'reports', key: 'roi_by_region.csv' },
  driftLatest: { bucket: 'reports', key: 'drift_latest.json' },
} as const satisfies Record<string, { bucket: Bucket; key: string }>;

/** The key of a trained model artifact. */
export function modelArtifactKey(runId: string): string {
  return `${runId}/model.json`;
}
