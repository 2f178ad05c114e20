export const BUCKETS = ['raw-data', 'features', 'models', 'predictions', 'reports'] as const;
export type Bucket = (typeof BUCKETS)[number];

export const KEYS = {
  odds: { bucket: 'raw-data', key: 'odds.parquet' },
  features: { bucket: 'features', key: 'match_features.parquet' },
  predictions: { bucket: 'predictions', key: 'predictions.parquet' },
  backtest: { bucket: 'predictions', key: 'backtest.parquet' },
  backtestMetrics: { bucket: 'predictions', key: 'backtest_metrics.json' },
  /** Market-free fallback: its walk-forward rows, scored for matches with no odds. */
  fallbackBacktest: { bucket: 'predictions', key: 'backtest_fallback.parquet' },
  roiByRegion: { bucket: 'reports', key: 'roi_by_region.csv' },
  roiByRegionSeason: { bucket: 'reports', key: 'roi_by_region_season.csv' },
  roiBaselines: { bucket: 'reports', key: 'roi_baselines.csv' },
  roiSummary: { bucket: 'reports', key: 'roi_summary.json' },
  driftLatest: { bucket: 'reports', key: 'drift_latest.json' },
  performanceLatest: { bucket: 'reports', key: 'performance_latest.json' },
  /** Goals model: expected goals + ρ per match; every market follows from them. */
  markets: { bucket: 'predictions', key: 'markets.parquet' },
  marketsMetrics: { bucket: 'predictions', key: 'markets_metrics.json' },
  /** Flat-stake ROI per region of the goals markets (O/U 2.5, BTTS): model and baselines. */
  roiByRegionMarkets: { bucket: 'reports', key: 'roi_by_region_markets.csv' },
} as const satisfies Record<string, { bucket: Bucket; key: string }>;

/** The served log: a history across runs, so deliberately not in {@link KEYS} (never pruned with a run). */
export const SERVED_LOG = { bucket: 'predictions', prefix: 'served/' } as const satisfies {
  bucket: Bucket;
  prefix: string;
};

/** Every odds observation, merged by each ingest: an input, not a run artifact, so not in {@link KEYS}. */
export const ODDS_OBSERVATIONS = { bucket: 'raw-data', key: 'odds_observations.parquet' } as const satisfies {
  bucket: Bucket;
  key: string;
};

export function modelArtifactKey(runId: string): string {
  return `${runId}/model.json`;
}
