import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Config, parseConfig } from '../../src/config.js';
import { type Database, openDatabase } from '../../src/db/index.js';
import { type Bucket, MatchcastError } from '../../src/domain/index.js';
import { createLogger, type Logger } from '../../src/logger.js';
import { artifactLoadFailuresTotal } from '../../src/metrics.js';
import { createServingViews, type ServingViewsOptions, type Views } from '../../src/serving/index.js';
import { createObjectStore, type ObjectStore } from '../../src/storage/index.js';

export const API_KEY = 'test-key-0123456789abcdef';

/**
 * The real folder store with two test controls: `down` makes every call fail as an unreachable
 * store does (MC_ERR_STORE_UNAVAILABLE), and `calls` counts calls per `method bucket/key`.
 */
export class ControlledStore implements ObjectStore {
  readonly kind: 'fs' | 's3';
  down = false;
  readonly calls = new Map<string, number>();
  constructor(private readonly inner: ObjectStore) {
    this.kind = inner.kind;
  }
  count(method: string, bucket: string, key: string): number {
    return this.calls.get(`${method} ${bucket}/${key}`) ?? 0;
  }
  private enter(method: string, bucket: Bucket, key: string): void {
    this.calls.set(`${method} ${bucket}/${key}`, this.count(method, bucket, key) + 1);
    if (this.down) throw new MatchcastError('MC_ERR_STORE_UNAVAILABLE', 'test: store down');
  }
  put: ObjectStore['put'] = async (b, k, body, o) => this.inner.put(b, k, body, o);
  get: ObjectStore['get'] = async (b, k) => {
    this.enter('get', b, k);
    return this.inner.get(b, k);
  };
  head: ObjectStore['head'] = async (b, k) => {
    this.enter('head', b, k);
    return this.inner.head(b, k);
  };
  list: ObjectStore['list'] = async (b, p) => this.inner.list(b, p);
  delete: ObjectStore['delete'] = async (b, k) => this.inner.delete(b, k);
  presign: ObjectStore['presign'] = async (b, k, t) => this.inner.presign(b, k, t);
  close = async () => this.inner.close();
}

export interface Harness {
  dir: string;
  config: Config;
  log: Logger;
  store: ControlledStore;
  /** PGlite in memory: the published-run pointer and run records. */
  db: Database;
  /** `{ db, store }`, what run writers and artifact reads take. */
  deps: { db: Database; store: ControlledStore };
  views: Views;
  cleanup(): Promise<void>;
}

/** A temp DATA_DIR with the folder store and an in-memory database; views are created but not started. */
export async function harness(
  env: Record<string, string> = {},
  options: ServingViewsOptions = {},
): Promise<Harness> {
  const dir = await mkdtemp(path.join(tmpdir(), 'matchcast-serving-'));
  const config = parseConfig({
    DATA_DIR: dir,
    API_KEY,
    LOG_LEVEL: 'silent',
    VIEW_REFRESH_MS: '60000',
    ROI_RECHECK_MS: '60000',
    URL_SIGNING_SECRET: 'test-secret-test-secret-test-secret',
    BOOKMAKER_URL_TEMPLATE: 'https://bookie.example/match/{match_id}?h={home}&a={away}',
    ...env,
  });
  const log = createLogger('silent');
  const store = new ControlledStore(createObjectStore(config, log));
  const db = await openDatabase(config, { memory: true });
  const views = createServingViews({ db, store }, config, log, options);
  return {
    dir,
    config,
    log,
    store,
    db,
    deps: { db, store },
    views,
    async cleanup() {
      await views.close();
      await store.close();
      await db.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export async function failures(artifact: string): Promise<number> {
  const m = await artifactLoadFailuresTotal.get();
  return m.values.find((v) => v.labels.artifact === artifact)?.value ?? 0;
}

/** Polls `check` until it returns true or `ms` elapse (bounded waits only). */
export async function until(
  check: () => boolean | Promise<boolean>,
  ms = 5000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what}`);
}
