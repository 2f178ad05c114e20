import type { Probabilities } from '../domain/index.js';
import { type FeatureRow, MODEL_FEATURE_NAMES, toModelInput } from '../features/index.js';
import type { ModelFamilyName } from './families/index.js';
import { computeMetrics, type MetricSet } from './metrics.js';
import { type Model, recencyWeights, resolveParams, type TrainParams, trainModel } from './model.js';

/** What the time-based validation and the walk-forward fit. */
export interface FitOptions {
  /** Classifier family. Default `multinomial_logit`. */
  family?: ModelFamilyName;
  /** Training parameters (see `TrainParams`). Default none. */
  params?: TrainParams;
  /** Model inputs. Default `MODEL_FEATURE_NAMES` (opening-odds market features, no closing odds). */
  featureNames?: readonly string[];
}

/** The model inputs and the training parameters (with the family). */
export function fitSetup(o: FitOptions): { featureNames: string[]; params: TrainParams } {
  return {
    featureNames: [...(o.featureNames ?? MODEL_FEATURE_NAMES)],
    params: { ...o.params, family: o.family ?? o.params?.family },
  };
}

/** A model's resolved training parameters as strings (registry format). */
export function paramStrings(model: Model): Record<string, string> {
  return Object.fromEntries(Object.entries(model.params).map(([k, v]) => [k, String(v)]));
}

/** Trains on the labelled rows, with recency weights when the parameters ask for them. */
export function fitRows(
  rows: readonly FeatureRow[],
  featureNames: readonly string[],
  params: TrainParams,
  warmStart?: Model,
): Model {
  const X: Float64Array[] = [];
  const y: number[] = [];
  const t: number[] = [];
  for (const r of rows) {
    if (r.label === null) continue;
    X.push(toModelInput(r, featureNames));
    y.push(r.label);
    t.push(r.start_time_utc.getTime());
  }
  const weights = recencyWeights(t, resolveParams(params).halfLifeDays);
  return trainModel(X, y, { ...params, featureNames }, weights, warmStart);
}

/** Adds `prefix` + metric name for every finite metric. */
export function putMetrics(out: Record<string, number>, prefix: string, m: MetricSet): void {
  for (const [k, v] of Object.entries(m)) if (Number.isFinite(v)) out[`${prefix}${k}`] = v;
}

/** Metrics of the model and of a baseline's odds on the labelled rows where that baseline exists. */
export function baselineMetrics(
  rows: readonly FeatureRow[],
  probs: readonly Probabilities[],
  which: 'open' | 'close' | 'pre',
): { model: MetricSet; market: MetricSet } {
  const mp: Probabilities[] = [];
  const op: Probabilities[] = [];
  const y: number[] = [];
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    const h = r[`odds_${which}_home`];
    const d = r[`odds_${which}_draw`];
    const a = r[`odds_${which}_away`];
    if (r.label === null || h === null || d === null || a === null) continue;
    mp.push(probs[i]);
    op.push([h, d, a]);
    y.push(r.label);
  }
  return { model: computeMetrics(mp, y), market: computeMetrics(op, y) };
}
