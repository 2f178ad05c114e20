import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildFeatureRows, type FeatureRow } from '../../src/features/index.js';
import { serializeModel, trainAndValidate, walkForwardBacktest } from '../../src/model/index.js';
import { syntheticLeague } from '../features/league-fixture.js';

const DAY = 86_400_000;
const { matches, odds } = syntheticLeague({ seasons: 4, teams: 8 });
const END = new Date('2030-01-01T00:00:00Z');
const rows = buildFeatureRows(matches, odds, END);
const last = rows[rows.length - 1].start_time_utc.getTime();

function relabel(src: readonly FeatureRow[], fromMs: number): FeatureRow[] {
  return src.map((r) =>
    r.start_time_utc.getTime() >= fromMs && r.label !== null
      ? { ...r, label: ((r.label + 1) % 3) as 0 | 1 | 2 }
      : r,
  );
}

test('trainAndValidate: time split, market metrics on the same matches, refit up to asOf', () => {
  // The synthetic seasons run August to November: asOf falls inside the last one.
  const asOf = new Date(last - 30 * DAY);
  const res = trainAndValidate(rows, { asOf, validationDays: 365 });
  assert.equal(res.trainingCutoff.getTime(), asOf.getTime());
  assert.equal(res.validationWindow.to.getTime(), asOf.getTime());
  assert.equal(res.validationWindow.from.getTime(), asOf.getTime() - 365 * DAY);
  for (const k of [
    'log_loss',
    'rps',
    'brier',
    'roc_auc_ovr',
    'accuracy',
    'market_log_loss',
    'market_rps',
    'model_on_market_log_loss',
  ]) {
    assert.ok(Number.isFinite(res.metrics[k]), k);
  }
  assert.ok(res.metrics.market_n < res.metrics.n, 'matches without odds are left out of the market metrics');
  assert.equal(res.params.family, 'multinomial_logit');
  assert.deepEqual(res.featureNames, res.model.feature_names);
  // Labels after asOf never reach the model.
  const again = trainAndValidate(relabel(rows, asOf.getTime()), { asOf, validationDays: 365 });
  assert.equal(serializeModel(again.model), serializeModel(res.model));
  assert.deepEqual(again.metrics, res.metrics);
  // …but labels before it do (the test can fail).
  const moved = trainAndValidate(relabel(rows, asOf.getTime() - 40 * DAY), { asOf, validationDays: 365 });
  assert.ok(serializeModel(moved.model) !== serializeModel(res.model), 'labels before asOf must matter');
});

test('trainAndValidate: challenger family', () => {
  const res = trainAndValidate(rows, { asOf: new Date(last - 100 * DAY), family: 'ordered_logit' });
  assert.equal(res.model.family, 'ordered_logit');
  assert.ok(Number.isFinite(res.metrics.log_loss));
});

test('walk-forward: folds by prediction time, each fold sees only labels known at its refit date', () => {
  const from = new Date(last - 400 * DAY);
  const to = new Date(last + 1);
  const res = walkForwardBacktest(rows, { from, to, refitDays: 90 });
  assert.ok(res.folds.length >= 2);
  // Folds by prediction time (kick-off − 48 h here): a fold's cut-off is at or before the row's prediction time.
  assert.equal(res.predictions.length, rows.filter((r) => r.prediction_time! >= from).length);
  const predictedAt = new Map(rows.map((r) => [r.match_id, r.prediction_time!.getTime()]));
  for (const p of res.predictions) {
    const s = predictedAt.get(p.match_id)!;
    assert.ok(p.training_cutoff.getTime() <= s && s < p.training_cutoff.getTime() + 90 * DAY);
    assert.ok(Math.abs(p.proba_home + p.proba_draw + p.proba_away - 1) < 1e-12);
  }
  // Relabel everything from the second fold's cut-off on: the first folds must not move.
  const cut = res.folds[1].training_cutoff.getTime();
  const other = walkForwardBacktest(relabel(rows, cut), { from, to, refitDays: 90 });
  const firstFolds = (r: typeof res) => r.predictions.filter((p) => p.training_cutoff.getTime() <= cut);
  assert.deepEqual(firstFolds(other), firstFolds(res));
  const later = (r: typeof res) => r.predictions.filter((p) => p.training_cutoff.getTime() > cut);
  assert.notDeepEqual(later(other), later(res));
  // Metrics: overall and per region, model vs opening vs closing on the same matches.
  for (const k of ['model_log_loss', 'both_model_log_loss', 'open_log_loss', 'close_log_loss', 'open_n']) {
    assert.ok(Number.isFinite(res.metrics.overall[k]), k);
  }
  assert.deepEqual(Object.keys(res.metrics.by_region), ['1', '2']);
});
