// The promotion guard demands an edge: a version that is worse than the de-margined
// opening line on its validation window never becomes candidate, whatever the champion does; the
// comparison is stored and `registry promote` shows it and needs --reason to override it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { registryCommand } from '../../src/cli/registry.js';
import { runFeaturesStage, runPromoteStage, runTrainStage } from '../../src/pipeline/index.js';
import { decidePromotion, type ModelVersion } from '../../src/registry/index.js';
import { draftDeps, openTestEnv, smallLeague, type TestEnv } from './fixtures.js';

const AS_OF = new Date('2023-09-15T00:00:00Z');

test('decidePromotion: beats or ties the champion within the tolerance AND beats the opening line', () => {
  const line = (model: number, market: number) => ({ n: 100, model_log_loss: model, line_log_loss: market });
  assert.equal(decidePromotion(0.97, 0.98, 0.0005, line(0.97, 0.98)).promote, true, 'beats both');
  const tie = decidePromotion(0.9804, 0.98, 0.0005, line(0.97, 0.98));
  assert.equal(tie.promote, true);
  assert.equal(tie.champion, 'ties');
  assert.equal(decidePromotion(0.9806, 0.98, 0.0005, line(0.97, 0.98)).champion, 'worse');
  const worseThanLine = decidePromotion(0.97, 0.98, 0.0005, line(0.981, 0.98));
  assert.equal(worseThanLine.promote, false, 'beats the champion, loses to the opening line');
  assert.equal(worseThanLine.opening, 'worse');
  assert.match(worseThanLine.reason, />= opening line 0\.98000/);
  assert.equal(
    decidePromotion(0.97, null, 0.0005, line(0.98, 0.98)).promote,
    false,
    'a tie with the line is no edge',
  );
  assert.equal(decidePromotion(0.97, null, 0.0005, line(0.975, 0.98), 0.01).promote, false, 'margin');
  assert.equal(decidePromotion(0.97, null, 0.0005, null).opening, 'no-line');
  assert.equal(decidePromotion(0.97, null, 0.0005, null).promote, true, 'no odds at all: nothing to beat');
});

describe('pipeline promote with the guard', () => {
  let env: TestEnv;
  let trained: ModelVersion;
  before(async () => {
    env = await openTestEnv(smallLeague({ teams: 6, seed: 11 }));
    const draft = await draftDeps(env, AS_OF);
    await runFeaturesStage(draft, AS_OF);
    trained = (await runTrainStage(draft, AS_OF)).version;
  });
  after(async () => {
    await env?.close();
  });

  test('train stores the model on exactly the matches of each line', () => {
    const m = trained.metrics;
    assert.ok(m.market_open_n > 0);
    assert.ok(Number.isFinite(m.model_on_open_log_loss), 'model_on_open_log_loss');
    assert.ok(Number.isFinite(m.market_open_log_loss));
    assert.ok(Number.isFinite(m.model_on_close_log_loss));
    assert.ok(Number.isFinite(m.market_close_log_loss));
  });

  test('a version worse than the opening line on its validation window is refused, even with no champion', async () => {
    const { registry } = env.deps;
    const m = trained.metrics;
    // The same model with metrics saying it lost to the opening line on the same matches.
    const worse = await registry.registerVersion({
      metrics: { ...m, model_on_open_log_loss: m.market_open_log_loss + 0.001 },
      params: trained.params,
      feature_names: trained.feature_names,
      training_cutoff: trained.training_cutoff,
      artifact: await registry.loadArtifact(trained),
    });
    const r = await runPromoteStage(env.deps);
    assert.equal(r.version, worse.version);
    assert.equal(r.promoted, false);
    assert.equal(r.opening_verdict, 'worse');
    assert.equal((await registry.aliases()).candidate, undefined, 'no candidate');
    const stored = await registry.readComparison(worse.version);
    assert.equal(stored?.promote, false);
    assert.equal(stored?.opening?.line_log_loss, m.market_open_log_loss);

    // The real trained version's fate follows its own figures against the line.
    const again = await registry.registerVersion({
      metrics: m,
      params: trained.params,
      feature_names: trained.feature_names,
      training_cutoff: trained.training_cutoff,
      artifact: await registry.loadArtifact(trained),
    });
    const r2 = await runPromoteStage(env.deps);
    assert.equal(r2.version, again.version);
    assert.equal(r2.promoted, m.model_on_open_log_loss < m.market_open_log_loss);
  });

  test('registry promote shows the comparison and needs --reason to sign off a candidate the guard refused', async () => {
    const { registry } = env.deps;
    const refused = (await registry.listVersions()).find(
      (v) => v.metrics.model_on_open_log_loss > v.metrics.market_open_log_loss,
    )!;
    // An operator set it as candidate by hand (the guard had refused it).
    await registry.setAlias('candidate', refused.version, 'operator', 'manual');
    let out = '';
    let err = '';
    const io = {
      out: (t: string) => {
        out += t;
      },
      err: (t: string) => {
        err += t;
      },
      config: env.config,
      db: env.deps.db,
      store: env.deps.store,
    };
    const code = await registryCommand(['promote'], io);
    assert.equal(code, 1);
    assert.match(err, /MC_ERR_PROMOTION_REFUSED/);
    assert.match(out, /opening line/);
    assert.notEqual((await registry.aliases()).champion, refused.version, 'not promoted');
    out = '';
    const forced = await registryCommand(['promote', '--reason', 'accepted: market data was stale'], io);
    assert.equal(forced, 0);
    assert.match(out, /override/);
    assert.equal((await registry.aliases()).champion, refused.version);
    assert.match((await registry.history()).at(-1)?.reason ?? '', /override.*market data was stale/);
  });
});
