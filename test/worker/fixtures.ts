// Shared test fixtures of the live path: a folder store and the embedded database (served on its
// socket, so worker threads and processes share it) with a published features file and a registered model.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Config, parseConfig } from '../../src/config.js';
import type { Database } from '../../src/db/index.js';
import {
  FEATURE_NAMES,
  type FeatureRow,
  featureRowsToParquet,
  toModelInput,
} from '../../src/features/index.js';
import { serializeModel } from '../../src/model/index.js';
import { trainModel } from '../../src/model/model.js';
import { createRegistry, type ModelVersion } from '../../src/registry/index.js';
import { createObjectStore, type ObjectStore } from '../../src/storage/index.js';
import { publishArtifacts } from '../helpers/served.js';
import { hostSharedDatabase } from '../helpers/shared-db.js';

export const MODEL_FEATURES = ['elo_diff', 'mkt_home', 'mkt_away'];
export const MATCH_IDS = Array.from({ length: 40 }, (_, i) => i + 1);

/** Deterministic pseudo-random numbers. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

export function featureRows(ids = MATCH_IDS): FeatureRow[] {
  const r = rng(7);
  return ids.map((id) => {
    const row: Record<string, unknown> = {
      match_id: id,
      start_time_utc: new Date(Date.UTC(2024, 0, 1) + id * 86_400_000),
      region_id: 1,
      season: '2023-2024',
      home_team_name: `Home ${id}`,
      away_team_name: `Away ${id}`,
      label: id % 3,
      is_future: false,
      as_of: new Date(Date.UTC(2025, 0, 1)),
    };
    for (const name of FEATURE_NAMES) row[name] = r() - 0.5;
    return row as FeatureRow;
  });
}

export interface Fixture {
  dir: string;
  config: Config;
  store: ObjectStore;
  /** The embedded database of `dir`, hosted on its socket for the fixture's lifetime. */
  db: Database;
  registry: ReturnType<typeof createRegistry>;
  /** Registers a new model version (trained with `l2`) and points `alias` at it. */
  publish(alias: 'champion' | 'challenger', l2?: number): Promise<ModelVersion>;
  cleanup(): Promise<void>;
}

/** A temp data dir with features for {@link MATCH_IDS}; env overrides go into the config. */
export async function createFixture(env: Record<string, string | undefined> = {}): Promise<Fixture> {
  const dir = mkdtempSync(path.join(tmpdir(), 'mc-live-'));
  const config = parseConfig({
    DATA_DIR: dir,
    LOG_LEVEL: 'silent',
    API_KEY: 'test-key-0123456789abcdef',
    ALIAS_REFRESH_MS: '50',
    VIEW_REFRESH_MS: '100',
    ...env,
  });
  const store = createObjectStore(config);
  let shared: Awaited<ReturnType<typeof hostSharedDatabase>> | undefined;
  try {
    shared = await hostSharedDatabase(config);
    await publishArtifacts({ db: shared.db, store }, { features: featureRowsToParquet(featureRows()) });
  } catch (err) {
    // A setup that fails (a database that does not come up) leaves no folder behind either.
    await shared?.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const db = shared.db;
  const rows = featureRows();
  const registry = createRegistry({ db, store }, config);
  const X = rows.map((row) => toModelInput(row, MODEL_FEATURES));
  const y = rows.map((row) => row.label ?? 0);
  return {
    dir,
    config,
    store,
    db,
    registry,
    async publish(alias, l2 = 0.01) {
      const model = trainModel(X, y, { featureNames: MODEL_FEATURES, l2, maxIter: 50 });
      const v = await registry.registerVersion({
        metrics: { log_loss: 1.05, roc_auc_ovr: 0.55 },
        params: { l2 },
        feature_names: MODEL_FEATURES,
        // Before every fixture match: live answers come from the model (older ones are answered out of sample only).
        training_cutoff: new Date(Date.UTC(2023, 11, 1)),
        artifact: serializeModel(model),
      });
      await registry.setAlias(alias, v.version, 'test');
      return v;
    },
    async cleanup() {
      await shared!.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function uniqueQueue(): string {
  return `t-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
}

/** Deletes every Redis key of a test queue (BullMQ's and ours), so test runs leave nothing behind. */
export async function dropQueueKeys(redisUrl: string | undefined, queueName: string): Promise<void> {
  if (!redisUrl) return;
  const { Redis } = await import('ioredis');
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1, connectTimeout: 500, lazyConnect: true });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    for (const pattern of [`bull:${queueName}:*`, `matchcast:${queueName}:*`]) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
        cursor = next;
        if (keys.length > 0) await redis.del(...keys);
      } while (cursor !== '0');
    }
  } catch {
    // Redis down (the broker-down tests): nothing was written.
  } finally {
    redis.disconnect();
  }
}
