import { KEYS } from '../domain/index.js';
import type { Logger } from '../logger.js';
import type { ObjectStore } from '../storage/index.js';

interface Table {
  etag: string | null;
  rows: Map<number, Record<string, unknown>>;
}

/**
 * The worker's in-memory copy of `features/match_features.parquet`, indexed by match_id. Loaded on
 * first use; afterwards the store's etag is checked at most every `refreshMs` in the background and
 * the table is swapped when it changed. A failed reload keeps the old table.
 */
export class FeatureTable {
  private table: Table | null = null;
  private loading: Promise<Table> | null = null;
  private checking = false;
  private checkedAt = 0;

  constructor(
    private readonly store: ObjectStore,
    private readonly parse: (body: Buffer) => Promise<Record<string, unknown>[]>,
    private readonly refreshMs: number,
    private readonly log: Logger,
  ) {}

  /** The feature row of a match, or undefined when the match (or the whole file) is absent. */
  async get(matchId: number): Promise<Record<string, unknown> | undefined> {
    if (!this.table) this.table = await this.load();
    else if (Date.now() - this.checkedAt >= this.refreshMs) this.check();
    return this.table.rows.get(matchId);
  }

  get size(): number {
    return this.table?.rows.size ?? 0;
  }

  private load(): Promise<Table> {
    this.loading ??= this.read().finally(() => {
      this.loading = null;
    });
    return this.loading;
  }

  private async read(): Promise<Table> {
    this.checkedAt = Date.now();
    const obj = await this.store.get(KEYS.features.bucket, KEYS.features.key);
    if (!obj) return { etag: null, rows: new Map() };
    const rows = new Map<number, Record<string, unknown>>();
    for (const row of await this.parse(obj.body)) rows.set(Number(row.match_id), row);
    this.log.info({ rows: rows.size, etag: obj.etag }, 'features loaded');
    return { etag: obj.etag, rows };
  }

  private check(): void {
    if (this.checking) return;
    this.checking = true;
    this.checkedAt = Date.now();
    (async () => {
      const head = await this.store.head(KEYS.features.bucket, KEYS.features.key);
      if ((head?.etag ?? null) === this.table?.etag) return;
      this.table = await this.load();
    })()
      .catch((err) =>
        this.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'features refresh failed'),
      )
      .finally(() => {
        this.checking = false;
      });
  }
}
