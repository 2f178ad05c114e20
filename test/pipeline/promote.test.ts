import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { PipelineDeps } from '../../src/pipeline/index.js';
import {
  bootstrapFirstRun,
  runFeaturesStage,
  runPromoteStage,
  runTrainStage,
} from '../../src/pipeline/index.js';
import type { ModelVersion } from '../../src/registry/index.js';
import { draftDeps, openTestEnv, smallLeague, type TestEnv } from './fixtures.js';

const AS_OF = new Date('2023-09-15T00:00:00Z');

/** Registers a copy of `base` (same window, same artifact) with another validation log loss. */
async function registerWithLogLoss(env: TestEnv, base: ModelVersion, logLoss: number): Promise<ModelVersion> {
  const artifact = await env.deps.registry.loadArtifact(base);
  return env.deps.registry.registerVersion({
    metrics: { ...base.metrics, log_loss: logLoss },
    params: base.params,
    feature_names: base.feature_names,
    training_cutoff: base.training_cutoff,
    artifact,
  });
}

describe('pipeline promote', () => {
  let env: TestEnv;
  /** `env.deps` inside a draft run: train and promote read the features stage's file. */
  let draft: PipelineDeps;
  before(async () => {
    // Flat odds: a line any rating model beats, so these tests are about the champion comparison;
    // the opening-line half of the guard is tested in promotion-guard.test.ts.
    env = await openTestEnv(
      smallLeague({ teams: 6, seed: 11 }).map((l) => ({
        ...l,
        odds: [2.5, 3.4, 3.0] as [number, number, number],
      })),
    );
    draft = await draftDeps(env, AS_OF);
  });
  after(async () => {
    await env?.close();
  });

  test('nothing registered: nothing to do', async () => {
    const r = await runPromoteStage(draft);
    assert.equal(r.promoted, false);
    assert.equal(r.method, 'nothing-to-do');
  });

  test('no champion: the new version becomes candidate; on the same window within/outside the tolerance', async () => {
    const { registry, config } = env.deps;
    await runFeaturesStage(draft, AS_OF);
    const v1 = (await runTrainStage(draft, AS_OF)).version;
    const r1 = await runPromoteStage(draft);
    assert.equal(r1.promoted, true);
    assert.equal(r1.method, 'no-champion');
    assert.equal((await registry.aliases()).candidate, v1.version);
    await registry.promoteCandidate('operator');

    // Retrained on the same as-of the stage reuses v1 (same run key); a version on the same window
    // with the same log loss → candidate.
    assert.equal((await runTrainStage(draft, AS_OF)).reused, true);
    const v2 = await registerWithLogLoss(env, v1, v1.metrics.log_loss!);
    assert.equal(v2.params.validation_from, v1.params.validation_from);
    const r2 = await runPromoteStage(draft);
    assert.equal(r2.method, 'same-window');
    assert.equal(r2.promoted, true);
    assert.equal(r2.champion_log_loss, v1.metrics.log_loss);

    const tol = config.promotionTolerance;
    assert.equal(tol, 0.0005);
    // Just outside the tolerance: no alias for the new version, the old candidate stays, and the stage says why.
    const worse = await registerWithLogLoss(env, v1, v1.metrics.log_loss + tol + 0.0005);
    const r3 = await runPromoteStage(draft);
    assert.equal(r3.version, worse.version);
    assert.equal(r3.promoted, false);
    assert.match(r3.reason, /> champion/);
    assert.equal((await registry.aliases()).candidate, v2.version);
    // Just inside: candidate.
    const ok = await registerWithLogLoss(env, v1, v1.metrics.log_loss + tol - 0.0005);
    const r4 = await runPromoteStage(draft);
    assert.equal(r4.promoted, true);
    assert.equal((await registry.aliases()).candidate, ok.version);
    const last = (await registry.history()).at(-1)!;
    assert.equal(last.actor, 'pipeline-promote');
    assert.match(last.reason ?? '', /same-window/);
  });

  test('different windows: the champion is measured on the new window without in-sample flattery', async () => {
    const { registry } = env.deps;
    // Champion trained long ago: it never saw the new window → its artifact is re-scored there.
    const old = (await runTrainStage(draft, new Date('2022-06-01T00:00:00Z'))).version;
    await registry.setAlias('champion', old.version, 'operator');
    // (Another window than v1's, so a new version rather than v1 reused.)
    await runTrainStage(draft, AS_OF, { validationDays: 300 });
    const r1 = await runPromoteStage(draft);
    assert.equal(r1.method, 'rescored-artifact');
    assert.ok(Number.isFinite(r1.champion_log_loss));

    // Champion trained up to now on a shorter window: its training data overlaps the new window →
    // its recipe is refit before the window and scored on it.
    const recent = (await runTrainStage(draft, AS_OF, { validationDays: 200 })).version;
    await registry.setAlias('champion', recent.version, 'operator');
    const fresh = (await runTrainStage(draft, AS_OF, { family: 'ordered_logit' })).version;
    const r2 = await runPromoteStage(draft);
    assert.equal(r2.version, fresh.version);
    assert.equal(r2.method, 'refit-champion-recipe');
    assert.ok(Number.isFinite(r2.champion_log_loss));
    assert.notEqual(r2.champion_log_loss, recent.metrics.log_loss, 'measured on the other window');

    // The whole recipe is refit, not only some of its parameters: the same champion with another
    // recency half-life measures differently on the same window.
    const halfLife = await env.deps.registry.registerVersion({
      metrics: recent.metrics,
      params: { ...recent.params, halfLifeDays: '120' },
      feature_names: recent.feature_names,
      training_cutoff: recent.training_cutoff,
      artifact: await env.deps.registry.loadArtifact(recent),
    });
    await registry.setAlias('champion', halfLife.version, 'operator');
    await registerWithLogLoss(env, fresh, fresh.metrics.log_loss!);
    const r3 = await runPromoteStage(draft);
    assert.equal(r3.method, 'refit-champion-recipe');
    assert.ok(Number.isFinite(r3.champion_log_loss));
    assert.notEqual(r3.champion_log_loss, r2.champion_log_loss, 'refit with the stored half-life');
  });

  test('the newest version is already the champion: nothing to do', async () => {
    const latest = (await env.deps.registry.latestVersion())!;
    await env.deps.registry.setAlias('champion', latest.version, 'operator');
    const r = await runPromoteStage(draft);
    assert.equal(r.method, 'nothing-to-do');
    assert.equal(r.promoted, false);
  });
});

test('first start on data too short to validate: the version is still signed off, and the history says so', async () => {
  const env = await openTestEnv(smallLeague({ teams: 4, seasons: 1, seed: 2 }));
  try {
    const r = await bootstrapFirstRun(env.deps, new Date('2022-01-01T00:00:00Z'), { analytics: {} });
    assert.equal(r.run?.promote.promoted, false, 'no validation log loss');
    assert.deepEqual(await env.deps.registry.aliases(), { champion: '1', challenger: '2' });
    const signOff = (await env.deps.registry.history()).find((e) => e.alias === 'champion')!;
    assert.match(signOff.reason ?? '', /without validation/);
    assert.ok(r.run?.predict && r.run.predict.rows > 0);
  } finally {
    await env.close();
  }
});
