import { MatchesRepository } from '../db/index.js';
import { type Match, MatchcastError } from '../domain/index.js';
import { type FeatureRow, hasNoOdds, predictionTimeOf, toModelInput } from '../features/index.js';
import { deserializeModel, type Model, predictProba } from '../model/index.js';
import type { ModelVersion } from '../registry/index.js';
import { writeParquet } from '../storage/index.js';
import { putArtifact, readBacktestRows, readFeatureRows } from './artifacts.js';
import { type PipelineDeps, progressOf } from './deps.js';
import {
  type BacktestRow,
  PREDICTION_COLUMNS,
  type PredictionRow,
  predictionRowOf,
} from './predictions-file.js';
import { fallbackChampion } from './stage-fallback.js';

export interface PredictResult {
  rows: number;
  champion_rows: number;
  backtest_rows: number;
  /** Rows without odds scored (or walked forward) by the market-free fallback. */
  fallback_rows: number;
  /** Past matches before the champion's cut-off that no backtest fold predicted: left out. */
  omitted: number;
  champion_version: string;
  champion_run_id: string;
  key: string;
  predictionRows: PredictionRow[];
}

/** Inputs a caller of {@link runPredictStage} may hand over to skip re-reading files. */
interface PredictInputs {
  featureRows?: FeatureRow[];
  /** Matches of the DB, as the features stage read them. Default: read them. */
  matches?: Match[];
  /** Clock for `predictions_computed_at`. Default now. */
  now?: Date;
  /** The market-free model for matches with no odds. Default: the registry's and the run's; null = none. */
  fallback?: PredictFallback | null;
}

interface PredictFallback {
  version: ModelVersion;
  model: Model;
  backtest: Map<number, BacktestRow>;
}

/** The fallback the registry and the run hold now, or null when there is none. */
async function loadFallback(
  deps: Pick<PipelineDeps, 'db' | 'store' | 'run' | 'config'>,
): Promise<PredictFallback | null> {
  const champion = await fallbackChampion(deps);
  if (!champion) return null;
  const rows = (await readBacktestRows(deps, 'fallbackBacktest')) ?? [];
  return { ...champion, backtest: new Map(rows.map((r) => [r.match_id, r])) };
}

/** MC_ERR_FEATURES_MISMATCH when `v` was trained on other features than the run's (`features`). */
function checkFeatures(what: string, v: ModelVersion, features: string | null, fix: string): void {
  if (v.feature_fingerprint && features && v.feature_fingerprint !== features) {
    throw new MatchcastError(
      'MC_ERR_FEATURES_MISMATCH',
      `${what} v${v.version} was trained on features ${v.feature_fingerprint}, this run's features are ${features}: ${fix}`,
    );
  }
}

/**
 * `pipeline predict`: the champion predicts from its training cut-off on. Before it, it would have seen
 * later results, so the row comes from a walk-forward fold cut off by the prediction time, or is left out.
 */
export async function runPredictStage(
  deps: Pick<PipelineDeps, 'db' | 'store' | 'registry' | 'log' | 'progress' | 'run' | 'config'>,
  asOf: Date,
  inputs: PredictInputs = {},
): Promise<PredictResult> {
  const load = progressOf(deps).step('predict', 'load', 4);
  const champion = await deps.registry.resolve('champion');
  if (!champion) {
    throw new MatchcastError(
      'MC_ERR_MODEL_UNAVAILABLE',
      'no champion in the registry: run `matchcast pipeline promote` and `matchcast registry promote` first',
    );
  }
  const featuresFingerprint = deps.run?.record.features_fingerprint ?? null;
  checkFeatures(
    'champion',
    champion,
    featuresFingerprint,
    'promote a version trained on them (`matchcast registry promote --force`), then rerun',
  );
  const model = deserializeModel((await deps.registry.loadArtifact(champion)).toString('utf8'));
  load.tick();
  const featureRows = inputs.featureRows ?? (await readFeatureRows(deps));
  load.tick();
  const allMatches = inputs.matches ?? (await new MatchesRepository(deps.db).allMatches());
  const matches = new Map(allMatches.map((m) => [m.id, m]));
  load.tick();
  const backtest = new Map((await readBacktestRows(deps))?.map((r) => [r.match_id, r]) ?? []);
  const fallback = inputs.fallback !== undefined ? inputs.fallback : await loadFallback(deps);
  if (fallback) {
    checkFeatures(
      'market-free fallback',
      fallback.version,
      featuresFingerprint,
      'rerun `matchcast pipeline run`',
    );
  }
  const fallbackCutoff = fallback ? new Date(fallback.version.training_cutoff).getTime() : 0;
  load.done({
    champion: champion.version,
    features: featureRows.length,
    backtest: backtest.size,
    fallback: fallback?.version.version ?? null,
  });

  const cutoff = new Date(champion.training_cutoff).getTime();
  const computedAt = inputs.now ?? new Date();
  const asOfMs = asOf.getTime();
  const step = progressOf(deps).step('predict', 'score', featureRows.length);
  const out: PredictionRow[] = [];
  const counts = { champion_rows: 0, backtest_rows: 0, fallback_rows: 0, omitted: 0 };
  for (let i = 0; i < featureRows.length; i++) {
    if (i > 0 && i % 2000 === 0) step.tick(2000);
    const f = featureRows[i];
    const m = matches.get(f.match_id);
    if (!m) continue; // deleted from the DB since the features ran
    // The prediction time decides which models may score it: one trained on results known by then.
    const predictedAt = predictionTimeOf(f);
    let proba: [number, number, number];
    let stage: PredictionRow['model_stage'];
    let runId: string;
    // No odds by its prediction time: the market-free model, never market features imputed.
    const noOdds = fallback !== null && hasNoOdds(f);
    const walked = noOdds && predictedAt < fallbackCutoff ? fallback.backtest.get(f.match_id) : undefined;
    if (noOdds && predictedAt >= fallbackCutoff) {
      proba = predictProba(fallback.model, toModelInput(f, fallback.version.feature_names));
      stage = 'fallback';
      runId = fallback.version.run_id;
      counts.fallback_rows++;
    } else if (walked && walked.training_cutoff.getTime() <= predictedAt) {
      proba = [walked.proba_home, walked.proba_draw, walked.proba_away];
      stage = 'backtest';
      runId = walked.model_run_id;
      counts.fallback_rows++;
      counts.backtest_rows++;
    } else if (predictedAt >= cutoff) {
      proba = predictProba(model, toModelInput(f, champion.feature_names));
      stage = 'champion';
      runId = champion.run_id;
      counts.champion_rows++;
    } else {
      const b = backtest.get(f.match_id);
      // A fold's cut-off is at or before the prediction times it predicts; anything else is not out of sample.
      if (!b || b.training_cutoff.getTime() > predictedAt) {
        counts.omitted++;
        continue;
      }
      proba = [b.proba_home, b.proba_draw, b.proba_away];
      stage = 'backtest';
      runId = b.model_run_id;
      counts.backtest_rows++;
    }
    out.push(predictionRowOf(m, proba, { asOfMs, stage, runId, computedAt, featureRow: f }));
  }
  step.done({ ...counts });

  const write = progressOf(deps).step('predict', 'write', 1);
  const body = writeParquet(PREDICTION_COLUMNS, out as unknown as Record<string, unknown>[]);
  const key = await putArtifact(deps.store, 'predictions', body);
  write.done({ key, rows: out.length, bytes: body.length });
  return {
    rows: out.length,
    ...counts,
    champion_version: champion.version,
    champion_run_id: champion.run_id,
    key,
    predictionRows: out,
  };
}
