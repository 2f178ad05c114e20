import { DAY_MS, type Probabilities } from '../domain/index.js';
import { type FeatureRow, labelKnownBy, predictionTimeOf, toModelInput } from '../features/index.js';
import { baselineMetrics, type FitOptions, fitRows, fitSetup, paramStrings, putMetrics } from './evaluate.js';
import { computeMetrics } from './metrics.js';
import { type Model, predictProba } from './model.js';

interface WalkForwardOptions extends FitOptions {
  /** First refit date: matches predicted (by prediction time) from here on are predicted. */
  from: Date;
  /** Matches predicted at or after this are not predicted. Default: after the last row. */
  to?: Date;
  /** Days between refits. Default `90`. */
  refitDays?: number;
}

export interface BacktestPrediction {
  match_id: number;
  proba_home: number;
  proba_draw: number;
  proba_away: number;
  fold_id: number;
  /** The fold's model saw only results known at this instant, at or before the row's prediction time. */
  training_cutoff: Date;
}

interface BacktestFold {
  fold_id: number;
  training_cutoff: Date;
  /** Predicted matches have their prediction time in [training_cutoff, until). */
  until: Date;
  n_train: number;
  n_predicted: number;
  model: Model;
}

export interface WalkForwardResult {
  predictions: BacktestPrediction[];
  folds: BacktestFold[];
  /** `model_*` on labelled matches; `both_model_*`, `open_*`, `close_*` on those with both lines. */
  metrics: { overall: Record<string, number>; by_region: Record<string, Record<string, number>> };
  params: Record<string, string>;
  featureNames: string[];
}

/** Walk-forward: at each refit date a model of the results known then predicts the rows until the next. */
export function walkForwardBacktest(
  rows: readonly FeatureRow[],
  options: WalkForwardOptions,
): WalkForwardResult {
  const { featureNames, params } = fitSetup(options);
  const step = (options.refitDays ?? 90) * DAY_MS;
  const fromMs = options.from.getTime();
  let lastMs = Number.NEGATIVE_INFINITY;
  for (const r of rows) lastMs = Math.max(lastMs, predictionTimeOf(r));
  const toMs = options.to ? options.to.getTime() : lastMs + 1;
  const sorted = [...rows].sort(
    (a, b) => predictionTimeOf(a) - predictionTimeOf(b) || a.match_id - b.match_id,
  );
  const predictions: BacktestPrediction[] = [];
  const predictedRows: FeatureRow[] = [];
  const probs: Probabilities[] = [];
  const folds: BacktestFold[] = [];
  let resolved: Record<string, string> = {};
  let previous: Model | undefined;
  for (let cut = fromMs, fold = 0; cut < toMs; cut += step, fold++) {
    const until = Math.min(cut + step, toMs);
    const test = sorted.filter((r) => predictionTimeOf(r) >= cut && predictionTimeOf(r) < until);
    if (test.length === 0) continue;
    const train = sorted.filter((r) => labelKnownBy(r, cut));
    if (train.length === 0) continue;
    const model = fitRows(train, featureNames, params, previous);
    previous = model;
    resolved = paramStrings(model);
    const cutoff = new Date(cut);
    for (const r of test) {
      const p = predictProba(model, toModelInput(r, featureNames));
      predictions.push({
        match_id: r.match_id,
        proba_home: p[0],
        proba_draw: p[1],
        proba_away: p[2],
        fold_id: fold,
        training_cutoff: cutoff,
      });
      predictedRows.push(r);
      probs.push(p);
    }
    folds.push({
      fold_id: fold,
      training_cutoff: cutoff,
      until: new Date(until),
      n_train: train.length,
      n_predicted: test.length,
      model,
    });
  }
  const byRegion = new Map<number, number[]>();
  predictedRows.forEach((r, i) => {
    const list = byRegion.get(r.region_id) ?? [];
    list.push(i);
    byRegion.set(r.region_id, list);
  });
  const summarise = (idx: number[]): Record<string, number> => {
    const out: Record<string, number> = {};
    const pick = (keep: (r: FeatureRow) => boolean) => {
      const kept = idx.filter((i) => keep(predictedRows[i]));
      return [kept.map((i) => predictedRows[i]), kept.map((i) => probs[i])] as const;
    };
    const [labelled, labelledProbs] = pick((r) => r.label !== null);
    const labels = labelled.map((r) => r.label as number);
    putMetrics(out, 'model_', computeMetrics(labelledProbs, labels));
    // Opening vs closing vs model on exactly the matches that have both.
    const [bothRows, bothProbs] = pick((r) => r.odds_open_home !== null && r.odds_close_home !== null);
    const bOpen = baselineMetrics(bothRows, bothProbs, 'open');
    putMetrics(out, 'both_model_', bOpen.model);
    putMetrics(out, 'open_', bOpen.market);
    putMetrics(out, 'close_', baselineMetrics(bothRows, bothProbs, 'close').market);
    return out;
  };
  const by_region: Record<string, Record<string, number>> = {};
  for (const [region, idx] of [...byRegion.entries()].sort((a, b) => a[0] - b[0]))
    by_region[String(region)] = summarise(idx);
  return {
    predictions,
    folds,
    metrics: { overall: summarise(probs.map((_, i) => i)), by_region },
    params: resolved,
    featureNames,
  };
}
