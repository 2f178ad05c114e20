import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { KEYS } from '../../src/domain/index.js';
import { runPipeline } from '../../src/pipeline/index.js';
import { servedStoreView } from '../helpers/served.js';
import { openTestEnv, smallLeague, type TestEnv } from './fixtures.js';

// Two horizons: the pipeline's backtest reports the early horizon against the opening line and the
// kick-off horizon (features at kick-off, the recipe refit on them) against the closing line.
const AS_OF = new Date('2023-09-15T00:00:00Z');
const BACKTEST_FROM = new Date('2022-08-01T00:00:00Z');

describe('two horizons in backtest_metrics.json', () => {
  let env: TestEnv;
  before(async () => {
    env = await openTestEnv(smallLeague());
  });
  after(async () => env?.close());

  test('horizons.early vs opening, horizons.kickoff vs closing, overall and per region', async () => {
    const run = await runPipeline(env.deps, AS_OF, {
      backtestFrom: BACKTEST_FROM,
      refitDays: 60,
      analytics: {},
    });
    const obj = await servedStoreView(env.deps).get(KEYS.backtestMetrics.bucket, KEYS.backtestMetrics.key);
    assert.ok(obj);
    const report = JSON.parse(obj.body.toString('utf8'));
    const { early, kickoff } = report.horizons;
    assert.equal(early.overall.line, 'opening');
    assert.equal(kickoff.overall.line, 'closing');
    const m = report.metrics.overall;
    assert.equal(early.overall.model_log_loss, m.both_model_log_loss);
    assert.equal(early.overall.line_log_loss, m.open_log_loss);
    assert.ok(Math.abs(early.overall.log_loss_gap - (m.both_model_log_loss - m.open_log_loss)) < 1e-12);
    // Each walk-forward takes the matches PREDICTED in the window: at kick-off − 48 h early, at kick-off
    // here, so the two sets differ only by the matches of the window's two 48 h edges.
    assert.ok(
      Math.abs(
        kickoff.overall.log_loss_gap - (kickoff.overall.model_log_loss - kickoff.overall.line_log_loss),
      ) < 1e-12,
    );
    assert.ok(kickoff.overall.n > 0 && Math.abs(kickoff.overall.n - early.overall.n) < 0.1 * early.overall.n);
    // (smallLeague's closing prices equal its opening ones; the kick-off rows' use of the closing line
    // is tested in test/features/odds-horizon.test.ts.)
    assert.ok(Number.isFinite(kickoff.overall.model_log_loss));
    assert.deepEqual(Object.keys(kickoff.by_region).sort(), Object.keys(report.metrics.by_region).sort());
    assert.equal(run.backtest.horizons.kickoff?.overall.model_log_loss, kickoff.overall.model_log_loss);
  });
});
