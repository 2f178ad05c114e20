import { MatchesRepository } from '../db/index.js';
import { type Match, type OddsObservation, type OddsRecord, RESULT_LAG_MS } from '../domain/index.js';
import { oddsRecordAsOf, readObservationSet } from '../ingest/index.js';
import {
  buildGoalInputs,
  GOAL_INPUTS_VERSION,
  type GoalInput,
  type GoalRatingParams,
  type GoalsMetrics,
  type GoalsModel,
  goalsWalkForward,
  MARKETS_COLUMNS,
  type MarketsRow,
  MIN_TRAIN_MATCHES,
  openingMeans,
  ou25Figures,
  predictGoals,
  serializeGoalsModel,
  trainGoalsModel,
} from '../model/index.js';
import { ModelRegistry, newRunId } from '../registry/index.js';
import { writeParquet } from '../storage/index.js';
import { putArtifact } from './artifacts.js';
import { type PipelineDeps, progressOf } from './deps.js';
import { readOddsMap } from './odds.js';
import { type GoalsPromoteResult, goalsGuardMetrics, promoteGoalsVersion } from './stage-promote.js';
import { type WalkForwardOptions, walkForwardWindow } from './windows.js';

interface GoalsStageOptions extends WalkForwardOptions {
  /** Matches already in memory (from the features stage). Default: read the DB. */
  matches?: Match[];
}

interface GoalsStageResult {
  version: string;
  model_run_id: string;
  rows: number;
  backtest_rows: number;
  folds: number;
  metrics: GoalsMetrics['overall'];
  key: string;
  /** The goals promotion guard's decision on the new version (stage-promote.ts). */
  promotion: Omit<GoalsPromoteResult, 'serving'>;
  /** The version whose rows from the end of the known results on are in the markets file; null: none passed. */
  serving_version: string | null;
}

/** Name of the goals model in the registry: the 1X2 model's name + `-goals`. */
export function goalsModelName(modelName: string): string {
  return `${modelName}-goals`;
}

/**
 * `buildGoalInputs` with opening means from the observations made by each prediction time (the live
 * worker's rule), so a later price reaches neither the walk-forward nor the served rows.
 */
function pointInTimeGoalInputs(
  matches: readonly Match[],
  odds: ReadonlyMap<number, OddsRecord>,
  asOf: Date,
  observed: ReadonlyMap<number, readonly OddsObservation[]> | null,
  rating?: Partial<GoalRatingParams>,
): GoalInput[] {
  const inputs = buildGoalInputs(matches, odds, asOf, rating);
  if (!observed) return inputs;
  for (const r of inputs) {
    const own = observed.get(r.match_id);
    if (!own || own.length === 0) continue;
    const at = new Date(r.pt);
    r.open = openingMeans(oddsRecordAsOf(r.match_id, own, odds.get(r.match_id), at));
  }
  return inputs;
}

/** `pipeline goals`: walks the goals model forward, fits and registers it, and writes the markets files. */
export async function runGoalsStage(
  deps: Pick<PipelineDeps, 'db' | 'store' | 'log' | 'progress' | 'run' | 'config'>,
  asOf: Date,
  options: GoalsStageOptions = {},
): Promise<GoalsStageResult | null> {
  const load = progressOf(deps).step('goals', 'inputs', 1);
  const matches = options.matches ?? (await new MatchesRepository(deps.db).allMatches());
  const odds = await readOddsMap(deps.store);
  // Observations with their times (ingest's input file): a match's own prices as seen at its prediction time.
  const observed =
    (await readObservationSet({ db: deps.db, store: deps.run?.base ?? deps.store }))?.value.byMatch ?? null;
  const inputs = pointInTimeGoalInputs(matches, odds, asOf, observed);
  load.done({ matches: matches.length, with_opening_prices: inputs.filter((r) => r.open).length });

  // The end of the known results (as `resultsEnd`): the model fitted then serves rows predicted from then on.
  let last = Number.NEGATIVE_INFINITY;
  for (const r of inputs) if (r.home_goals !== null && r.t > last) last = r.t;
  const end = Number.isFinite(last) ? Math.min(asOf.getTime(), last + RESULT_LAG_MS) : asOf.getTime();
  const { from, to, refitDays } = walkForwardWindow(end, asOf, options);
  const wf = progressOf(deps).step('goals', 'walk-forward', 1);
  const bt = goalsWalkForward(inputs, { from, to, refitDays });
  wf.done({ folds: bt.folds.length, predicted: bt.rows.length, ou25: bt.metrics.overall.ou25?.model });

  const fit = progressOf(deps).step('goals', 'fit', 1);
  const finished = inputs.filter((r) => r.home_goals !== null && r.t + RESULT_LAG_MS <= end).length;
  if (finished < MIN_TRAIN_MATCHES) {
    // Too little history to fit: no goals version and no markets file in this run (never a stale one).
    deps.run?.drop('markets');
    deps.run?.drop('marketsMetrics');
    fit.done({ skipped: true, finished });
    deps.log.warn({ stage: 'goals', finished }, 'goals model skipped: too few finished matches');
    return null;
  }
  const model = trainGoalsModel(inputs, new Date(end));
  const registry = new ModelRegistry(
    { db: deps.db, store: deps.run?.base ?? deps.store },
    goalsModelName(deps.config.modelName),
  );
  // The guard's keys (`log_loss`, `model_on_open_log_loss`, …: O/U 2.5) are those `registry promote` reads.
  const flat: Record<string, number> = goalsGuardMetrics(ou25Figures(inputs, bt.rows));
  for (const market of ['ou25', 'btts'] as const) {
    const m = bt.metrics.overall[market];
    if (!m) continue;
    flat[`${market}_log_loss`] = m.model;
    flat[`${market}_open_log_loss`] = m.open;
    flat[`${market}_close_log_loss`] = m.close;
    flat[`${market}_n`] = m.n;
  }
  const version = await registry.registerVersion({
    run_id: newRunId(),
    pipeline_run_id: deps.run?.runId,
    metrics: flat,
    params: {
      family: model.family,
      guard_market: 'ou25',
      inputs_version: model.inputs_version,
      l2: model.params.l2,
      rating_eta: model.rating.eta,
      rating_eta_region: model.rating.etaRegion,
      rho: (model.state as { rho?: number }).rho ?? 0,
      backtest_from: from.toISOString(),
      backtest_to: to.toISOString(),
      // The guard's validation matches are the walk-forward's: the same window.
      validation_from: from.toISOString(),
      validation_to: to.toISOString(),
      n_train: model.n_train,
    },
    feature_names: ['open_implied_goals', 'rated_goals_own', 'rated_goals_other', 'open_missing'],
    training_cutoff: new Date(end),
    artifact: serializeGoalsModel(model),
    feature_fingerprint: goalsFingerprint(model),
  });
  const { serving, ...promotion } = await promoteGoalsVersion(deps, {
    registry,
    version,
    model,
    inputs,
    backtest: bt,
    window: { from, to, refitDays },
    rebuildInputs: (rating) => pointInTimeGoalInputs(matches, odds, asOf, observed, rating),
  });
  fit.done({
    version: version.version,
    n_train: model.n_train,
    promoted: promotion.promoted,
    serving: serving?.version.version ?? null,
  });

  const write = progressOf(deps).step('goals', 'write', 2);
  const foldRun = new Map(bt.folds.map((f) => [f.fold_id, newRunId()]));
  const byMatch = new Map(bt.rows.map((r) => [r.match_id, r]));
  // Like predictions.parquet: walk-forward rows, then the serving champion's from the end of the known
  // results on, on inputs built with its own rating parameters.
  const servingInputs = new Map((serving?.inputs ?? []).map((r) => [r.match_id, r]));
  const served = inputs.filter((r) => byMatch.has(r.match_id) || (serving !== null && r.pt >= end));
  const prices = (id: number) => {
    const o = odds.get(id);
    // The latest price, else the closing, else the opening one.
    return {
      odd_over25: o?.odd_over25 ?? o?.close_over25 ?? o?.open_over25 ?? null,
      odd_under25: o?.odd_under25 ?? o?.close_under25 ?? o?.open_under25 ?? null,
      odd_btts_yes: o?.odd_btts_yes ?? o?.close_btts_yes ?? o?.open_btts_yes ?? null,
      odd_btts_no: o?.odd_btts_no ?? o?.close_btts_no ?? o?.open_btts_no ?? null,
    };
  };
  const rows: MarketsRow[] = served.map((input) => {
    const b = byMatch.get(input.match_id);
    const p = b ?? predictGoals(serving!.model, servingInputs.get(input.match_id) ?? input);
    return {
      match_id: input.match_id,
      expected_home_goals: p.lh,
      expected_away_goals: p.la,
      rho: p.rho,
      model_stage: b ? 'backtest' : 'champion',
      model_run_id: b ? foldRun.get(b.fold_id)! : serving!.version.run_id,
      training_cutoff: b ? b.training_cutoff : new Date(serving!.version.training_cutoff),
      ...prices(input.match_id),
    };
  });
  const body = writeParquet(MARKETS_COLUMNS, rows as unknown as Record<string, unknown>[]);
  const key = await putArtifact(deps.store, 'markets', body);
  write.tick();
  const report = {
    generated_at: new Date().toISOString(),
    as_of: asOf.toISOString(),
    model_version: version.version,
    model_run_id: version.run_id,
    serving_version: serving?.version.version ?? null,
    promotion,
    from: from.toISOString(),
    to: to.toISOString(),
    folds: bt.folds.map((f) => ({ ...f, model_run_id: foldRun.get(f.fold_id) })),
    metrics: bt.metrics,
  };
  await putArtifact(deps.store, 'marketsMetrics', `${JSON.stringify(report, null, 2)}\n`);
  write.done({ key, rows: rows.length, bytes: body.length });
  return {
    version: version.version,
    model_run_id: version.run_id,
    rows: rows.length,
    backtest_rows: bt.rows.length,
    folds: bt.folds.length,
    metrics: bt.metrics.overall,
    key,
    promotion,
    serving_version: serving?.version.version ?? null,
  };
}

/** The goals model's feature fingerprint: its input definition version and rating parameters. */
export function goalsFingerprint(model: GoalsModel): string {
  return `goals-v${model.inputs_version}:eta=${model.rating.eta}:etaRegion=${model.rating.etaRegion}`;
}

/** Whether this build computes a goals fingerprint's inputs (the worker answers 503 if not); null: 1X2. */
export function goalsFingerprintCurrent(fingerprint: string): boolean | null {
  if (!fingerprint.startsWith('goals-v')) return null;
  return fingerprint.startsWith(`goals-v${GOAL_INPUTS_VERSION}:`);
}
