import {
  type AnalystData,
  computeAnalystData,
  computeAnalystDataOffThread,
  loadAnalystSources,
  PublishedCache,
} from '../../analytics/index.js';
import { readPublished } from '../../runs/index.js';
import type { AppContext } from '../context.js';

const caches = new WeakMap<AppContext, PublishedCache<AnalystData>>();

/**
 * The rows from the published run's sources (hundreds of MB the serving heap would keep): reduced in a
 * child process where one can reach the database (PostgreSQL, or the embedded one's socket), else here.
 */
async function compute(ctx: AppContext): Promise<AnalystData> {
  if (ctx.db.kind === 'postgres') {
    const runId = (await readPublished(ctx.db))?.run_id ?? null;
    try {
      return await computeAnalystDataOffThread(ctx.config, runId, ctx.db.schema);
    } catch (err) {
      ctx.log.warn(
        { err: err instanceof Error ? err.message : String(err) },
        'analyst rows: child process failed, computing them in the serving thread',
      );
    }
  }
  return computeAnalystData(await loadAnalystSources(ctx.store, ctx.db), ctx.config.edgeThreshold);
}

/** The published run's analyst rows, shared by one app's routes: recomputed when the published run changes. */
export function analystData(ctx: AppContext): Promise<AnalystData> {
  let cache = caches.get(ctx);
  if (!cache) {
    cache = new PublishedCache(ctx.db, () => compute(ctx));
    caches.set(ctx, cache);
  }
  return cache.get();
}
