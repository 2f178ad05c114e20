import { hash } from 'node:crypto';
import { MatchesRepository, PendingRepredictions } from '../db/index.js';
import { DAY_MS, isMatchcastError, type Match, type OddsRecord } from '../domain/index.js';
import {
  buildFeatureRows,
  type FeatureCheckpoint,
  type FeatureResume,
  type FeatureRow,
  hasNoOdds,
  toModelInput,
} from '../features/index.js';
import { type OddsSet, readObservationSet, readOddsSet } from '../ingest/index.js';
import { deserializeModel, type Model, predictProba } from '../model/index.js';
import { type PublishedRun, type RunEvent, RunWriter, readArtifact, readPublished } from '../runs/index.js';
import { readParquet, writeParquet } from '../storage/index.js';
import { type PipelineDeps, warnOnFailure } from './deps.js';
import { evaluateGates } from './gates.js';
import { timelineOfMatches } from './odds.js';
import { PREDICTION_COLUMNS, type PredictionRow, predictionRowOf, resultOf } from './predictions-file.js';
import { type AnalyticsStages, defaultAnalyticsStages } from './run.js';
import { fallbackChampion } from './stage-fallback.js';
import type { PredictResult } from './stage-predict.js';

/** What a re-prediction keeps between calls, so that a call pays only for the matches it touches. */
export interface RepredictCache {
  model?: { version: string; model: Model };
  /** The market-free fallback's parsed model (matches without odds), by version. */
  fallback?: { version: string; model: Model };
  predictions?: { key: string; rows: PredictionRow[] };
  /** Per region, the feature state a few days before the last call's "now", where the next call starts. */
  features?: Map<number, FeatureCheckpoint>;
  /** Per region, its matches by id and the database mark they are current to (see loadRegionMatches). */
  matches?: Map<number, { mark: string; byId: Map<number, Match> }>;
}

/**
 * Every match of `regionIds`, cached and refreshed with the rows written since the region was last read;
 * a region whose count no longer matches the cache (a row deleted) is read whole again.
 */
async function loadRegionMatches(
  deps: Pick<PipelineDeps, 'db'>,
  regionIds: readonly number[],
  cache: RepredictCache,
): Promise<Match[]> {
  const repo = new MatchesRepository(deps.db);
  cache.matches ??= new Map();
  const held = cache.matches;
  const cached = regionIds.filter((r) => held.has(r));
  const fresh = regionIds.filter((r) => !held.has(r));
  if (cached.length > 0) {
    // The oldest mark of the regions asked for: rows already held may come again (merged by id).
    const since = cached.map((r) => held.get(r)!.mark).reduce((a, b) => (BigInt(a) < BigInt(b) ? a : b));
    const delta = await repo.regionMatchesSince(cached, since);
    for (const m of delta.matches) held.get(m.regionId)?.byId.set(m.id, m);
    for (const r of cached) {
      const slot = held.get(r)!;
      if ((delta.counts.get(r) ?? 0) === slot.byId.size) slot.mark = delta.mark;
      else {
        held.delete(r);
        fresh.push(r);
      }
    }
  }
  if (fresh.length > 0) {
    const all = await repo.regionMatchesSince(fresh, null);
    for (const r of fresh) held.set(r, { mark: all.mark, byId: new Map() });
    for (const m of all.matches) held.get(m.regionId)?.byId.set(m.id, m);
  }
  const out: Match[] = [];
  for (const r of regionIds) for (const m of held.get(r)?.byId.values() ?? []) out.push(m);
  return out;
}

/** Results and closing odds arrive within hours of kick-off: matches older than this rarely change. */
const CHECKPOINT_LAG_MS = 3 * DAY_MS;

interface RepredictOptions {
  asOf: Date;
  /** Reused between calls. Default: a fresh one (everything is read). */
  cache?: RepredictCache;
  /** Actor of the run record and the history. Default `repredict`. */
  actor?: string;
  /** Where the re-predicted rows are logged as served. Default {@link defaultAnalyticsStages}. */
  analytics?: AnalyticsStages;
}

export interface RepredictResult {
  /** Matches whose probabilities were recomputed by the champion. */
  repredicted: number;
  /** Matches whose row changed otherwise (result arrived, or a backtest-stage row's outcome fields). */
  updated: number;
  /** Asked-for matches left alone (unknown, or before the champion's cut-off without a row). */
  unchanged: number;
  /** The published run, or null when nothing was published (no change, or nothing to build on). */
  run_id: string | null;
  published: RunEvent | null;
  /** Why nothing was published, when nothing was. */
  reason: string | null;
  ms: number;
  /** Wall time of each step, ms (where the time goes; docs/benchmarks.md). */
  phases: Record<string, number>;
  /** Regions whose features were rebuilt, and how many of them started from a checkpoint. */
  regions: number;
  resumed_regions: number;
}

/** Decodes the predictions file; `odds_observed_at` is null in files from before that column. */
export async function decodePredictionRows(body: Buffer): Promise<PredictionRow[]> {
  return (await readParquet(body)).map((r) => ({
    ...(r as unknown as PredictionRow),
    model_stage: r.model_stage === 'backtest' || r.model_stage === 'fallback' ? r.model_stage : 'champion',
    odds_observed_at: (r.odds_observed_at as Date | null | undefined) ?? null,
  }));
}

async function publishedRows(
  deps: Pick<PipelineDeps, 'db' | 'store'>,
  published: PublishedRun,
  cache: RepredictCache,
): Promise<PredictionRow[] | null> {
  const ref = published.artifacts.predictions;
  if (!ref) return null;
  if (cache.predictions?.key !== ref.key) {
    const obj = await readArtifact(deps, 'predictions', published);
    if (!obj) return null;
    cache.predictions = { key: ref.key, rows: await decodePredictionRows(obj.body) };
  }
  return cache.predictions.rows;
}

/**
 * Re-prediction of `matchIds` on features rebuilt for their regions only (a region's rows depend on its
 * own matches alone), published as a gated run; before the champion's cut-off only results change.
 */
export async function repredictMatches(
  deps: PipelineDeps,
  matchIds: Iterable<number>,
  options: RepredictOptions,
): Promise<RepredictResult> {
  const ids = [...matchIds];
  // Another re-prediction published first: build again on the run it published, so both land.
  for (let attempt = 1; ; attempt++) {
    try {
      const result = await repredictOnce(deps, ids, options);
      // Published (or nothing to publish): these matches no longer wait.
      await new PendingRepredictions(deps.db).clear(ids);
      return result;
    } catch (err) {
      if (!isMatchcastError(err, 'MC_ERR_CONFLICT') || attempt >= REPREDICT_ATTEMPTS) throw err;
      deps.log.info({ attempt }, 'repredict: the published run moved meanwhile; rebuilding on it');
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 50 * attempt));
    }
  }
}

/** Attempts of a re-prediction that keeps losing the race to publish (each rebuilt on the newer run). */
const REPREDICT_ATTEMPTS = 10;

async function repredictOnce(
  deps: PipelineDeps,
  matchIds: Iterable<number>,
  options: RepredictOptions,
): Promise<RepredictResult> {
  const started = performance.now();
  const cache = options.cache ?? {};
  const asOf = options.asOf;
  const phases: Record<string, number> = {};
  let mark = started;
  const lap = (name: string) => {
    const t = performance.now();
    phases[name] = Math.round((t - mark) * 10) / 10;
    mark = t;
  };
  let regionCount = 0;
  let resumed = 0;
  const done = (
    reason: string | null,
    counts = { repredicted: 0, updated: 0, unchanged: 0 },
    run: RunWriter | null = null,
    published: RunEvent | null = null,
  ): RepredictResult => ({
    ...counts,
    run_id: run?.runId ?? null,
    published,
    reason,
    ms: Math.round(performance.now() - started),
    phases,
    regions: regionCount,
    resumed_regions: resumed,
  });
  const wanted = new Set(matchIds);
  if (wanted.size === 0) return done('no matches');
  const published = await readPublished(deps.db);
  if (!published) return done('no published run to build on');
  const champion = await deps.registry.resolve('champion');
  if (!champion) return done('no champion');
  const [model, fallback, served, inRegions, oddsEntry, observed] = await Promise.all([
    cache.model?.version === champion.version
      ? cache.model.model
      : deps.registry.loadArtifact(champion).then((body) => deserializeModel(body.toString('utf8'))),
    fallbackChampion(deps, cache.fallback),
    publishedRows(deps, published, cache),
    new MatchesRepository(deps.db).regionsOf([...wanted]).then((r) => loadRegionMatches(deps, r, cache)),
    // Decoded once per version of each file (they change only with ingest, which leaves its copy).
    readOddsSet(deps.store, { keepBody: true }),
    readObservationSet(deps),
  ]);
  cache.model = { version: champion.version, model };
  if (fallback) cache.fallback = { version: fallback.version.version, model: fallback.model };
  if (!served) return done('the published run has no predictions');
  const odds: OddsSet = oddsEntry?.value ?? { records: [], byId: new Map() };
  lap('load');

  const affected = new Map(inRegions.filter((m) => wanted.has(m.id)).map((m) => [m.id, m]));
  const regions = new Set([...affected.values()].map((m) => m.regionId));
  const regionMatches = inRegions.filter((m) => regions.has(m.regionId));
  const timeline = timelineOfMatches(observed?.value ?? null, odds.byId, regionMatches);
  lap('observations');
  // A region's rows depend on its own matches alone, so each region resumes from its own checkpoint.
  const features = new Map<number, FeatureRow>();
  cache.features ??= new Map();
  const checkpoints = cache.features;
  regionCount = regions.size;
  for (const region of regions) {
    const resume: FeatureResume = {
      from: checkpoints.get(region) ?? null,
      takeAt: new Date(asOf.getTime() - CHECKPOINT_LAG_MS),
    };
    const built = buildFeatureRows(
      regionMatches.filter((m) => m.regionId === region),
      odds.byId,
      asOf,
      { observations: timeline, horizon: { at: asOf } },
      resume,
    );
    for (const f of built) if (affected.has(f.match_id)) features.set(f.match_id, f);
    if (resume.taken) checkpoints.set(region, resume.taken);
    else checkpoints.delete(region);
    if (resume.resumed) resumed++;
  }
  lap('features');

  const cutoff = new Date(champion.training_cutoff).getTime();
  // The wall clock, not `asOf`: a replay's `asOf` is simulated.
  const computedAt = new Date();
  const index = new Map(served.map((r, i) => [r.match_id, i]));
  const rows = served.slice();
  const fresh: PredictionRow[] = [];
  let updated = 0;
  let unchanged = wanted.size - affected.size;
  for (const [id, m] of affected) {
    const f = features.get(id);
    const at = index.get(id);
    const start = m.startTimeUtc.getTime();
    const scores = resultOf(m, asOf.getTime());
    if (f && start >= cutoff) {
      // No odds by its prediction time: the market-free model, as in the full predict stage.
      const byFallback =
        fallback !== null && hasNoOdds(f) && start >= new Date(fallback.version.training_cutoff).getTime();
      const scorer = byFallback ? fallback : { version: champion, model };
      const proba = predictProba(scorer.model, toModelInput(f, scorer.version.feature_names));
      const row = predictionRowOf(m, proba, {
        asOfMs: asOf.getTime(),
        stage: byFallback ? 'fallback' : 'champion',
        runId: scorer.version.run_id,
        computedAt,
        featureRow: f,
      });
      if (at === undefined) rows.push(row);
      else rows[at] = row;
      fresh.push(row);
    } else if (
      at !== undefined &&
      (Object.keys(scores) as (keyof typeof scores)[]).some((k) => rows[at]![k] !== scores[k])
    ) {
      rows[at] = { ...rows[at]!, ...scores };
      updated++;
    } else unchanged++;
  }
  const counts = { repredicted: fresh.length, updated, unchanged };
  lap('predict');
  if (fresh.length + updated === 0) return done('nothing changed', counts);

  const run = await RunWriter.begin(deps, {
    kind: 'incremental',
    parent: published.run_id,
    asOf,
    actor: options.actor ?? 'repredict',
    log: deps.log,
  });
  lap('begin');
  try {
    await run.put(
      'predictions',
      writeParquet(PREDICTION_COLUMNS, rows as unknown as Record<string, unknown>[]),
    );
    // The cards show the run's odds snapshot: the odds the new rows came from (inherited if the same bytes).
    if (oddsEntry?.body && run.ref('odds')?.sha256 !== hash('sha256', oddsEntry.body))
      await run.put('odds', oddsEntry.body);
    await run.recordStage('repredict', null, { ...counts, regions: regions.size, resumed_regions: resumed });
    lap('write');
    // Every gate runs on what this run changes; the inherited features and backtest passed them when
    // published (their figures carry over instead of being re-read).
    const gates = await evaluateGates(
      run,
      published,
      { predictionRows: rows, backtestRows: null, odds: odds.records as OddsRecord[] },
      { maxRowDrop: deps.config.gateMaxRowDrop, asOf },
    );
    lap('gates');
    const event = await run.publish({ gates, actor: options.actor ?? 'repredict' });
    lap('publish');
    cache.predictions = { key: run.ref('predictions')!.key, rows };
    // Published: the re-predicted rows are now what the API serves before their kick-offs.
    const analytics = options.analytics ?? (await defaultAnalyticsStages());
    const predict = { predictionRows: fresh, champion_run_id: champion.run_id } as PredictResult;
    await analytics
      .served?.(deps, asOf, predict, [...features.values()], run.runId)
      .catch(warnOnFailure(deps.log, 'served log not written'));
    lap('served_log');
    return done(null, counts, run, event);
  } catch (err) {
    await run.fail(err).catch(() => undefined);
    throw err;
  }
}
