import { type Bucket, KEYS, MatchcastError } from '../domain/index.js';
import { type FeatureRow, featureRowsFromParquet } from '../features/index.js';
import { type ArtifactName, type ArtifactSource, readCurrentArtifact } from '../runs/index.js';
import { type ObjectStore, readParquet, writeParquet } from '../storage/index.js';
import { BACKTEST_COLUMNS, type BacktestRow } from './predictions-file.js';

/** The features of the run (`run.store`) or the published run; MC_ERR_NOT_FOUND when there are none. */
export async function readFeatureRows(src: ArtifactSource): Promise<FeatureRow[]> {
  const obj = await readCurrentArtifact(src, 'features');
  if (!obj) {
    throw new MatchcastError(
      'MC_ERR_NOT_FOUND',
      `${KEYS.features.bucket}/${KEYS.features.key} does not exist: run \`matchcast pipeline features\` first`,
    );
  }
  return featureRowsFromParquet(obj.body);
}

/** A JSON file of the store, or null when it is absent or does not parse. */
export async function readJson<T>(store: ObjectStore, bucket: Bucket, key: string): Promise<T | null> {
  const obj = await store.get(bucket, key);
  if (!obj) return null;
  try {
    return JSON.parse(obj.body.toString('utf8')) as T;
  } catch {
    return null;
  }
}

/** Writes artifact `name` at its `KEYS` place (the run's copy when `store` is `run.store`); returns `bucket/key`. */
export async function putArtifact(
  store: ObjectStore,
  name: ArtifactName,
  body: Buffer | string,
): Promise<string> {
  await store.put(KEYS[name].bucket, KEYS[name].key, body);
  return `${KEYS[name].bucket}/${KEYS[name].key}`;
}

export function backtestToParquet(rows: readonly BacktestRow[]): Buffer {
  return writeParquet(BACKTEST_COLUMNS, rows as unknown as Record<string, unknown>[]);
}

/** Reads `predictions/backtest.parquet` (or the fallback's walk-forward rows); null when none was written. */
export async function readBacktestRows(
  src: ArtifactSource,
  name: 'backtest' | 'fallbackBacktest' = 'backtest',
): Promise<BacktestRow[] | null> {
  const obj = await readCurrentArtifact(src, name);
  if (!obj) return null;
  return (await readParquet(obj.body)).map((r) => ({
    match_id: Number(r.match_id),
    proba_home: Number(r.proba_home),
    proba_draw: Number(r.proba_draw),
    proba_away: Number(r.proba_away),
    model_run_id: String(r.model_run_id),
    training_cutoff:
      r.training_cutoff instanceof Date ? r.training_cutoff : new Date(String(r.training_cutoff)),
  }));
}
