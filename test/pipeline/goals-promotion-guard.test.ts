// The goals model's promotion guard (the 1X2 guard applied to the goals model): a goals
// version becomes the goals champion only if, on the same walk-forward matches, it beats or ties the
// goals champion on O/U 2.5 log loss AND beats the de-margined opening O/U 2.5 line; a refusal is
// MC_ERR_PROMOTION_REFUSED, stored as a comparison, and `registry promote --reason` overrides it.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { registryCommand } from '../../src/cli/registry.js';
import { type Config, parseConfig } from '../../src/config.js';
import { type Database, openDatabase } from '../../src/db/index.js';
import { createLogger } from '../../src/logger.js';
import type { TrainGoalsOptions } from '../../src/model/goals/goals-model.js';
import {
  buildGoalInputs,
  type GoalInput,
  type GoalsBacktestResult,
  type GoalsModel,
  goalsWalkForward,
  ou25Figures,
  serializeGoalsModel,
  trainGoalsModel,
} from '../../src/model/index.js';
import { goalsFingerprint, goalsModelName } from '../../src/pipeline/stage-goals.js';
import { goalsGuardMetrics, promoteGoalsVersion } from '../../src/pipeline/stage-promote.js';
import { ModelRegistry } from '../../src/registry/index.js';
import { RunWriter, readPublished } from '../../src/runs/index.js';
import { createObjectStore, type ObjectStore } from '../../src/storage/index.js';
import { goalsLeague } from '../model/goals-fixture.js';

const AS_OF = new Date('2019-09-01T00:00:00Z');
const FROM = new Date('2019-01-01T00:00:00Z');
const WINDOW = { from: FROM, to: AS_OF, refitDays: 60 };

let dir: string;
let config: Config;
let store: ObjectStore;
let db: Database;
let registry: ModelRegistry;
let inputs: GoalInput[];
const log = createLogger('silent');

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'mc-goals-guard-'));
  config = parseConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' });
  store = createObjectStore(config);
  db = await openDatabase(config, { memory: true });
  registry = new ModelRegistry({ db, store }, goalsModelName(config.modelName));
  const { matches, odds } = goalsLeague({ seasons: 3 });
  inputs = buildGoalInputs(matches, odds, AS_OF);
});
after(async () => {
  await db?.close();
  await store?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Inputs whose opening O/U line is replaced by `line(over)` (the match's real outcome known to it or not). */
function withOpeningLine(line: (over: boolean) => number): GoalInput[] {
  return inputs.map((r) => {
    if (r.home_goals === null || r.away_goals === null) return r;
    return { ...r, line: { ...r.line, ou_open: line(r.home_goals + r.away_goals > 2.5) } };
  });
}

/** Fits, walks forward, registers (with the stage's metrics) and runs the guard, as the goals stage does. */
async function judge(
  rows: GoalInput[],
  options: TrainGoalsOptions = {},
  reg: ModelRegistry = registry,
  window: typeof WINDOW = WINDOW,
) {
  const bt: GoalsBacktestResult = goalsWalkForward(rows, { ...window, ...options });
  const model: GoalsModel = trainGoalsModel(rows, AS_OF, options);
  const version = await reg.registerVersion({
    metrics: goalsGuardMetrics(ou25Figures(rows, bt.rows)),
    params: { family: model.family, validation_from: FROM.toISOString(), validation_to: AS_OF.toISOString() },
    feature_names: ['open_implied_goals'],
    training_cutoff: AS_OF,
    artifact: serializeGoalsModel(model),
    feature_fingerprint: goalsFingerprint(model),
  });
  const result = await promoteGoalsVersion(
    { config, db, store, log },
    {
      registry: reg,
      version,
      model,
      inputs: rows,
      backtest: bt,
      window,
      rebuildInputs: () => rows,
    },
  );
  return { result, version, bt };
}

test('a goals version worse than the opening O/U 2.5 line is refused (no champion to beat)', async () => {
  // An opening line that all but knew the result: no model beats it.
  const { result, version } = await judge(withOpeningLine((over) => (over ? 0.97 : 0.03)));
  assert.equal(result.promoted, false);
  assert.equal(result.code, 'MC_ERR_PROMOTION_REFUSED');
  assert.equal(result.opening_verdict, 'worse');
  assert.equal(result.champion_verdict, 'no-champion');
  assert.equal(result.serving, null, 'nothing passed: no champion rows to serve');
  assert.equal((await registry.aliases()).champion, undefined);
  assert.ok(result.opening && result.opening.model_log_loss > result.opening.line_log_loss);
  // Both lines recorded under names that say which, and the comparison stored for `registry promote`.
  assert.ok(Number.isFinite(version.metrics.market_open_log_loss));
  assert.ok(Number.isFinite(version.metrics.market_close_log_loss));
  const stored = await registry.readComparison(version.version);
  assert.equal(stored?.promote, false);
  assert.equal(stored?.opening_verdict, 'worse');
});

test('a goals version that beats the opening line becomes champion; a worse recipe is then refused against it', async () => {
  // An opening line that leaned the wrong way every time: any sensible model beats it.
  const wrongLine = withOpeningLine((over) => (over ? 0.35 : 0.65));
  // On this small league a heavily shrunk recipe generalises best (the default overfits 150 matches).
  const shrunk = { l2: 10 };
  const first = await judge(wrongLine, shrunk);
  assert.equal(first.result.promoted, true, first.result.reason);
  assert.equal(first.result.code, null);
  assert.equal(first.result.opening_verdict, 'beats');
  assert.equal((await registry.aliases()).champion, first.version.version);
  assert.equal(first.result.serving?.version.version, first.version.version);

  // The same recipe again: the champion's refit would give the same rows, so it ties and passes.
  const again = await judge(wrongLine, shrunk);
  assert.equal(again.result.method, 'same-recipe');
  assert.equal(again.result.champion_verdict, 'ties');
  assert.equal(again.result.promoted, true);

  // The default recipe also beats that line but loses to the champion's recipe walked forward over
  // the same folds: refused, and the champion keeps serving.
  const champion = again.version.version;
  const worse = await judge(wrongLine);
  assert.equal(worse.result.method, 'refit-champion-recipe');
  assert.equal(worse.result.opening_verdict, 'beats');
  assert.ok(
    (worse.result.new_log_loss ?? 0) > (worse.result.champion_log_loss ?? 1) + config.promotionTolerance,
    worse.result.reason,
  );
  assert.equal(worse.result.champion_verdict, 'worse');
  assert.equal(worse.result.promoted, false);
  assert.equal(worse.result.code, 'MC_ERR_PROMOTION_REFUSED');
  assert.equal((await registry.aliases()).champion, champion);
  assert.equal(worse.result.serving?.version.version, champion, 'the champion keeps serving');
});

test('registry promote on the goals registry shows the guard and needs --reason to override a refusal', async () => {
  // A published run with 1X2 features: a goals fingerprint is never compared with them.
  const run = await RunWriter.begin({ db, store }, { kind: 'incremental' });
  run.setFeaturesFingerprint('sha256:1x2-features');
  await run.publish({ gates: [], requireParentCurrent: false });
  assert.equal((await readPublished(db))?.features_fingerprint, 'sha256:1x2-features');
  const refused = await judge(withOpeningLine((over) => (over ? 0.97 : 0.03)));
  assert.equal(refused.result.promoted, false);
  await registry.setAlias('candidate', refused.version.version, 'operator', 'manual');
  let out = '';
  let err = '';
  const io = {
    out: (t: string) => {
      out += t;
    },
    err: (t: string) => {
      err += t;
    },
    config: { ...config, modelName: registry.modelName },
    db,
    store,
  };
  assert.equal(await registryCommand(['promote'], io), 1);
  assert.match(err, /MC_ERR_PROMOTION_REFUSED/);
  assert.match(out, /opening line \(required\)/);
  assert.notEqual((await registry.aliases()).champion, refused.version.version);
  out = '';
  assert.equal(await registryCommand(['promote', '--reason', 'opening O/U prices were corrupt'], io), 0);
  assert.match(out, /override/);
  assert.equal((await registry.aliases()).champion, refused.version.version);

  // A goals version on goal inputs this build no longer computes: refused unless --force.
  const stale = await registry.registerVersion({
    metrics: refused.version.metrics,
    params: refused.version.params,
    feature_names: refused.version.feature_names,
    training_cutoff: refused.version.training_cutoff,
    artifact: await registry.loadArtifact(refused.version),
    feature_fingerprint: 'goals-v0:eta=0.45:etaRegion=0.01',
  });
  err = '';
  assert.equal(await registryCommand(['alias', 'set', 'challenger', stale.version], io), 1);
  assert.match(err, /MC_ERR_FEATURES_MISMATCH/);
  assert.equal(await registryCommand(['alias', 'set', 'challenger', stale.version, '--force'], io), 0);
});

test('no walk-forward match to validate on: signed off without validation only when nothing serves', async () => {
  const reg = new ModelRegistry({ db, store }, 'empty-window-goals');
  // A window after the last match: the walk-forward predicts nothing.
  const late = {
    from: new Date('2025-01-01T00:00:00Z'),
    to: new Date('2025-06-01T00:00:00Z'),
    refitDays: 60,
  };
  const first = await judge(inputs, {}, reg, late);
  assert.equal(first.bt.rows.length, 0);
  assert.equal(first.result.promoted, true, first.result.reason);
  assert.match(first.result.reason, /without validation/);
  // With a champion serving, an unvalidated version is refused and the champion stays.
  const second = await judge(inputs, {}, reg, late);
  assert.equal(second.result.promoted, false, second.result.reason);
  assert.equal(second.result.code, 'MC_ERR_PROMOTION_REFUSED');
  assert.equal((await reg.aliases()).champion, first.version.version);
});
