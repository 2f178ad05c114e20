import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openTestEnv, runPipelineCli, smallLeague, type TestEnv } from './fixtures.js';

let env: TestEnv;
before(async () => {
  env = await openTestEnv(smallLeague({ teams: 4, seasons: 2, seed: 5 }));
});
after(async () => {
  await env?.close();
});

const run = (...argv: string[]) => runPipelineCli(env, ...argv);

test('usage errors exit 2 without touching anything', async () => {
  assert.equal((await run()).code, 2);
  assert.equal((await run('bake')).code, 2);
  assert.equal((await run('features', '--as-of', 'yesterday')).code, 2);
  assert.equal((await run('train', '--family', 'forest')).code, 2);
  assert.equal((await run('backtest', '--refit-days', '0')).code, 2);
  assert.equal((await run('features', '--source', '/tmp')).code, 2, '--source belongs to run');
  assert.equal((await run('--help')).code, 0);
});

test('stages from the command line, --json results, failures exit 1', async () => {
  const asOf = ['--as-of', '2022-10-01'];
  assert.equal((await run('predict', ...asOf)).code, 1, 'no champion yet');
  const features = await run('features', ...asOf, '--json');
  assert.equal(features.code, 0, features.err);
  assert.equal(JSON.parse(features.out).rows, env.ids.length);
  assert.equal((await run('train', ...asOf, '--family', 'ordered_logit')).code, 0);
  const promote = await run('promote');
  assert.equal(promote.code, 0);
  // The guard's verdict (candidate only with an edge over the champion and the opening line), with its reason.
  assert.match(promote.out, /^(candidate set|no alias set): version 1: .*opening/);
  const backtest = JSON.parse(
    (await run('backtest', ...asOf, '--from', '2022-08-01', '--refit-days', '30', '--json')).out,
  );
  assert.ok(backtest.rows > 0);
  assert.equal(backtest.refit_days, 30);
  assert.equal((await run('simulate', ...asOf)).code, 1, 'not in this build (no analytics stages given)');
});

test('pipeline goals: too few finished matches produces nothing: exit 1, MC_ERR_VALIDATION, no goals version', async () => {
  // This league has 48 matches, under the goals model's minimum of 50 (the fit path: cli-goals.test.ts).
  const r = await run('goals', '--as-of', '2022-10-01', '--json');
  assert.equal(r.code, 1, r.err);
  assert.match(r.err, /produced nothing: too few finished matches .*\[MC_ERR_VALIDATION\]/);
  assert.equal(r.out, '');
  assert.equal((await run('goals', '--refit-days', '0')).code, 2, 'bad window: usage error');
});
