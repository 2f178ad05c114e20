import { DAY_MS, type Probabilities } from '../domain/index.js';
import { type FeatureRow, labelKnownBy, predictionTimeOf, toModelInput } from '../features/index.js';
import { baselineMetrics, type FitOptions, fitRows, fitSetup, paramStrings, putMetrics } from './evaluate.js';
import { computeMetrics } from './metrics.js';
import { type Model, predictProba } from './model.js';

interface TrainAndValidateOptions extends FitOptions {
  /** "Now": only results known by then (kick-off + RESULT_LAG_MS at or before it) are used. */
  asOf: Date;
  /** Length of the validation window that ends at `asOf`. Default `365`. */
  validationDays?: number;
}

export interface TrainAndValidateResult {
  /** Refit on every result known at `asOf`. */
  model: Model;
  /** Out-of-sample metrics, and `market[_open|_close]_*` beside `model_on_*` on the matches with odds. */
  metrics: Record<string, number>;
  params: Record<string, string>;
  featureNames: string[];
  /** The refit saw only results known at this instant (= `asOf`); it serves rows predicted from then on. */
  trainingCutoff: Date;
  validationWindow: { from: Date; to: Date };
}

/** Trains on results known at `asOf − validationDays`, measures on rows predicted since, refits at `asOf`. */
export function trainAndValidate(
  rows: readonly FeatureRow[],
  options: TrainAndValidateOptions,
): TrainAndValidateResult {
  const asOfMs = options.asOf.getTime();
  const from = new Date(asOfMs - (options.validationDays ?? 365) * DAY_MS);
  const { featureNames, params } = fitSetup(options);
  const trainRows = rows.filter((r) => labelKnownBy(r, from.getTime()));
  const validRows = rows.filter(
    (r) => labelKnownBy(r, asOfMs) && predictionTimeOf(r) >= from.getTime() && predictionTimeOf(r) < asOfMs,
  );
  const metrics: Record<string, number> = {};
  if (trainRows.length > 0 && validRows.length > 0) {
    const m = fitRows(trainRows, featureNames, params);
    const probs: Probabilities[] = validRows.map((r) => predictProba(m, toModelInput(r, featureNames)));
    const labels = validRows.map((r) => r.label as number);
    putMetrics(metrics, '', computeMetrics(probs, labels));
    metrics.n_train = trainRows.length;
    for (const [which, prefix] of [
      ['pre', 'market_'],
      ['open', 'market_open_'],
      ['close', 'market_close_'],
    ] as const) {
      const b = baselineMetrics(validRows, probs, which);
      if (b.market.n === 0) continue;
      putMetrics(metrics, prefix, b.market);
      // The model on exactly the matches each line has: what the promotion guard compares.
      putMetrics(metrics, which === 'pre' ? 'model_on_market_' : `model_on_${which}_`, b.model);
    }
  }
  const model = fitRows(
    rows.filter((r) => labelKnownBy(r, asOfMs)),
    featureNames,
    params,
  );
  return {
    model,
    metrics,
    params: paramStrings(model),
    featureNames,
    trainingCutoff: new Date(asOfMs),
    validationWindow: { from, to: new Date(asOfMs) },
  };
}
