import {
  type AnalystData,
  backtestSummary,
  computeAnalystData,
  computeAnalystDataOffThread,
  computeBacktestSummaryOffThread,
  loadAnalystSources,
  PublishedCache,
} from '../../analytics/index.js';
import { embeddedDbDir, embeddedServerAnswers } from '../../db/index.js';
import { readPublished } from '../../runs/index.js';
import type { BacktestSummary } from '../../schemas/index.js';
import type { AppContext } from '../context.js';

/** Rows no export or explanation asked for this long are let go: they are recomputed on demand. */
const ROWS_IDLE_MS = 5 * 60_000;

const caches = new WeakMap<
  AppContext,
  { rows: PublishedCache<AnalystData>; summary: PublishedCache<BacktestSummary> }
>();

/** Whether a child process can open the database this app reads: PostgreSQL, or the embedded one's socket. */
async function childReaches(ctx: AppContext): Promise<boolean> {
  if (ctx.db.kind === 'postgres') return true;
  return ctx.config.databaseUrl === undefined && embeddedServerAnswers(embeddedDbDir(ctx.config));
}

/** In a child process when one reaches the database: the sources are hundreds of MB of serving heap. */
async function offThread<T>(
  ctx: AppContext,
  what: string,
  compute: (runId: string | null) => Promise<T>,
  here: () => Promise<T>,
): Promise<T> {
  if (await childReaches(ctx)) {
    // Twice: a run published between reading its id and the child's own read makes the child refuse.
    for (let attempt = 1; attempt <= 2; attempt++) {
      const runId = (await readPublished(ctx.db))?.run_id ?? null;
      try {
        return await compute(runId);
      } catch (err) {
        ctx.log.warn(
          { err: err instanceof Error ? err.message : String(err), attempt },
          attempt < 2
            ? `${what}: child process failed, trying again`
            : `${what}: child process failed, computing them in the serving thread`,
        );
      }
    }
  }
  return here();
}

function cachesOf(ctx: AppContext) {
  let found = caches.get(ctx);
  if (!found) {
    const rows = new PublishedCache(
      ctx.db,
      () =>
        offThread(
          ctx,
          'analyst rows',
          (runId) => computeAnalystDataOffThread(ctx.config, runId, ctx.db.schema),
          async () =>
            computeAnalystData(await loadAnalystSources(ctx.store, ctx.db), ctx.config.edgeThreshold),
        ),
      ROWS_IDLE_MS,
    );
    const summary = new PublishedCache(ctx.db, () =>
      offThread(
        ctx,
        'backtest figures',
        (runId) => computeBacktestSummaryOffThread(ctx.config, runId, ctx.db.schema),
        async () => backtestSummary(await rows.get()),
      ),
    );
    found = { rows, summary };
    caches.set(ctx, found);
  }
  return found;
}

/** The published run's analyst rows, shared by one app's routes: recomputed when the published run changes. */
export function analystData(ctx: AppContext): Promise<AnalystData> {
  return cachesOf(ctx).rows.get();
}

/** The published run's backtest figures (small: kept while the run is published, unlike the rows). */
export function publishedBacktestSummary(ctx: AppContext): Promise<BacktestSummary> {
  return cachesOf(ctx).summary.get();
}
