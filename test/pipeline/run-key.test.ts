// `pipeline run` on unchanged data, parameters and code reuses the version it trained before
// (same run key) instead of registering an identical one; a change of any of them trains anew.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { runPipeline, runTrainStage } from '../../src/pipeline/index.js';
import { openTestEnv, smallLeague, type TestEnv } from './fixtures.js';

const AS_OF = new Date('2023-09-15T00:00:00Z');
const OPTIONS = { backtestFrom: new Date('2022-08-01T00:00:00Z'), refitDays: 90, analytics: {} };
let env: TestEnv;
before(async () => {
  env = await openTestEnv(smallLeague());
});
after(async () => {
  await env?.close();
});

test('a second run on the same data reuses the version; new results, another family train anew', async () => {
  const reg = env.deps.registry;
  const first = await runPipeline(env.deps, AS_OF, OPTIONS);
  assert.equal(first.train.reused, false);
  const v1 = first.train.version;
  assert.match(v1.params.run_key ?? '', /^[0-9a-f]{64}$/, 'the key is recorded with the version');

  // Unchanged: same data and parameters; "now" a day later adds no result (none is known in between).
  const second = await runPipeline(env.deps, new Date(AS_OF.getTime() + 3_600_000), OPTIONS);
  assert.equal(second.train.reused, true);
  assert.equal(second.train.version.version, v1.version);
  assert.equal(second.train.version.run_id, v1.run_id);
  assert.deepEqual(
    (await reg.listVersions()).map((v) => v.version),
    [v1.version],
    'no new version of the model',
  );

  // Another family is another recipe.
  const other = await runTrainStage(env.deps, AS_OF, { family: 'ordered_logit' });
  assert.equal(other.reused, false);
  assert.notEqual(other.version.version, v1.version);

  // A month later, more results are known: new training data, new version.
  const later = await runPipeline(env.deps, new Date(AS_OF.getTime() + 30 * 86_400_000), OPTIONS);
  assert.equal(later.train.reused, false);
  assert.notEqual(later.train.version.params.run_key, v1.params.run_key);
});

test('a version of a failed run is never reused', async () => {
  const reg = env.deps.registry;
  const asOf = new Date('2023-03-01T00:00:00Z');
  const a = await runTrainStage(env.deps, asOf, { validationDays: 200 });
  assert.equal(a.reused, false);
  // As if the run that registered it died: its versions are marked failed.
  await env.deps.db.query(`UPDATE model_versions SET status = 'failed' WHERE run_id = $1`, [
    a.version.run_id,
  ]);
  assert.equal(await reg.findByRunKey(a.version.params.run_key!), null);
  const b = await runTrainStage(env.deps, asOf, { validationDays: 200 });
  assert.equal(b.reused, false);
  assert.equal(b.version.params.run_key, a.version.params.run_key);
  assert.notEqual(b.version.version, a.version.version);
});
