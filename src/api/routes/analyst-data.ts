import {
  type AnalystData,
  computeAnalystData,
  loadAnalystSources,
  PublishedCache,
} from '../../analytics/index.js';
import type { AppContext } from '../context.js';

const caches = new WeakMap<AppContext, PublishedCache<AnalystData>>();

/**
 * The analyst rows of the published run, shared by the export, backtest and explanation routes of
 * one app: computed on first use and again only when the published run changes.
 */
export function analystData(ctx: AppContext): Promise<AnalystData> {
  let cache = caches.get(ctx);
  if (!cache) {
    cache = new PublishedCache(ctx.db, async () =>
      computeAnalystData(await loadAnalystSources(ctx.store, ctx.db), ctx.config.edgeThreshold),
    );
    caches.set(ctx, cache);
  }
  return cache.get();
}
