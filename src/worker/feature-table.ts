import type { Queryable } from '../db/index.js';
import type { Logger } from '../logger.js';
import { type PublishedRun, publishedSeq, readPublished, readVerified } from '../runs/index.js';
import { type ObjectStore, readParquet } from '../storage/index.js';

/** An out-of-sample (walk-forward) probability triple of the served run's backtest. */
interface BacktestEntry {
  proba: [number, number, number];
  model_run_id: string;
  training_cutoff: Date;
}

/** One consistent set: the features and the backtest of ONE published run. */
export interface FeatureSnapshot {
  /** The published run (null: no run published yet). */
  runId: string | null;
  /** Fingerprint of the feature definition that built the features (null when unknown). */
  fingerprint: string | null;
  /** The published pointer the snapshot was read through (null: none yet), for the run's other artifacts. */
  published: PublishedRun | null;
  rows: ReadonlyMap<number, Record<string, unknown>>;
  backtest: Map<number, BacktestEntry>;
}

/** A date cell as a Date (parsed when it is not one already). */
export const dateOf = (v: unknown): Date => (v instanceof Date ? v : new Date(String(v)));

function parseBacktest(rows: Record<string, unknown>[]): Map<number, BacktestEntry> {
  return new Map(
    rows.map((r) => [
      Number(r.match_id),
      {
        proba: [Number(r.proba_home), Number(r.proba_draw), Number(r.proba_away)],
        model_run_id: String(r.model_run_id),
        training_cutoff: dateOf(r.training_cutoff),
      },
    ]),
  );
}

/** How often a miss (an unknown match id) may trigger an immediate check of the published pointer. */
const MISS_RECHECK_MS = 250;

/** The served run's features and backtest by match_id; a new run swaps them, a failed reload keeps them. */
export class FeatureTable {
  private table: FeatureSnapshot | null = null;
  private loading: Promise<FeatureSnapshot> | null = null;
  private checking: Promise<void> | null = null;
  private checkedAt = 0;

  constructor(
    private readonly db: Queryable,
    private readonly store: ObjectStore,
    private readonly parse: (body: Buffer) => Promise<ReadonlyMap<number, Record<string, unknown>>>,
    private readonly refreshMs: number,
    private readonly log: Logger,
    /** Called after a newly published run's snapshot replaced the previous one (not on the first load). */
    private readonly onReload?: (snap: FeatureSnapshot) => void,
  ) {}

  /** A match's row; a miss re-checks the pointer now, so a just-published match is found at once. */

  async lookup(
    matchId: number,
  ): Promise<{ snap: FeatureSnapshot; row: Record<string, unknown> | undefined }> {
    let snap = await this.snapshot();
    let row = snap.rows.get(matchId);
    if (row === undefined && Date.now() - this.checkedAt >= MISS_RECHECK_MS) {
      await this.check();
      snap = this.table ?? snap;
      row = snap.rows.get(matchId);
    }
    return { snap, row };
  }

  /** The current snapshot (features + backtest of one run). */
  async snapshot(): Promise<FeatureSnapshot> {
    if (!this.table) this.table = await this.load();
    else if (Date.now() - this.checkedAt >= this.refreshMs) void this.check();
    return this.table;
  }

  private load(): Promise<FeatureSnapshot> {
    this.loading ??= this.read().finally(() => {
      this.loading = null;
    });
    return this.loading;
  }

  private async read(): Promise<FeatureSnapshot> {
    this.checkedAt = Date.now();
    const pointer = await readPublished(this.db);
    const fRef = pointer?.artifacts.features;
    const bRef = pointer?.artifacts.backtest;
    const [fObj, bObj] = await Promise.all([
      fRef ? readVerified(this.store, fRef) : null,
      bRef ? readVerified(this.store, bRef) : null,
    ]);
    const rows = fObj ? await this.parse(fObj.body) : new Map<number, Record<string, unknown>>();
    const backtest = bObj ? parseBacktest(await readParquet(bObj.body)) : new Map<number, BacktestEntry>();
    if (!pointer) return { runId: null, fingerprint: null, published: null, rows, backtest };
    const { run_id, features_fingerprint: fingerprint } = pointer;
    const counts = { rows: rows.size, backtest: backtest.size };
    this.log.info({ run_id, ...counts, fingerprint }, 'features loaded (published run)');
    return { runId: run_id, fingerprint, published: pointer, rows, backtest };
  }

  /** Reloads when a new run was published; one check at a time (callers share it); never throws. */
  private check(): Promise<void> {
    if (this.checking) return this.checking;
    this.checkedAt = Date.now();
    this.checking = (async () => {
      const seq = await publishedSeq(this.db);
      // A vanished pointer keeps the last published set.
      if (seq === null || seq === this.table?.published?.seq) return;

      this.table = await this.load();
      this.onReload?.(this.table);
    })()
      .catch((err) =>
        this.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'features refresh failed'),
      )
      .finally(() => {
        this.checking = null;
      });
    return this.checking;
  }
}
