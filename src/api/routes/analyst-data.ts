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
 * The rows from the published run's sources. The sources are a few hundred MB at tens of thousands
 * of matches, garbage the serving heap would keep for long after: where another process can reach
 * the same database (PostgreSQL, or the embedded one behind its socket) they are read and reduced
 * there, and only the rows come back; otherwise (an in-process PGlite) here.
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

/**
 * The analyst rows of the published run, shared by the export, backtest and explanation routes of
 * one app: computed on first use and again only when the published run changes.
 */
export function analystData(ctx: AppContext): Promise<AnalystData> {
  let cache = caches.get(ctx);
  if (!cache) {
    cache = new PublishedCache(ctx.db, () => compute(ctx));
    caches.set(ctx, cache);
  }
  return cache.get();
}
