import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { KEYS } from '../../src/domain/index.js';
import { goalsModelName } from '../../src/pipeline/stage-goals.js';
import { ModelRegistry } from '../../src/registry/index.js';
import { readRunRecord } from '../../src/runs/index.js';
import { openTestEnv, runPipelineCli, smallLeague, type TestEnv } from './fixtures.js';

let env: TestEnv;
before(async () => {
  // 2 regions × 6 teams × 2 seasons = 120 matches: enough for the goals model (minimum 50).
  env = await openTestEnv(smallLeague({ teams: 6, seasons: 2, seed: 11 }));
});
after(async () => {
  await env?.close();
});

const run = (...argv: string[]) => runPipelineCli(env, ...argv);

test('pipeline goals: stand-alone stage fits, registers <MODEL_NAME>-goals and writes the markets file into a draft run', async () => {
  const r = await run(
    'goals',
    '--as-of',
    '2022-12-01',
    '--from',
    '2022-08-01',
    '--refit-days',
    '30',
    '--json',
  );
  assert.equal(r.code, 0, r.err);
  const result = JSON.parse(r.out);
  assert.equal(result.version, '1');
  assert.ok(result.rows > 0, `markets rows ${result.rows}`);
  assert.ok(result.backtest_rows > 0, `backtest rows ${result.backtest_rows}`);
  const draftId = /wrote draft run (\S+) \(not served\)/.exec(r.err)?.[1];
  assert.ok(draftId, r.err);

  const registry = new ModelRegistry(env.deps, goalsModelName(env.config.modelName));
  // No O/U prices in this league: no line to beat and no champion yet, so the guard passes it.
  assert.equal(result.promotion.promoted, true, result.promotion.reason);
  assert.equal(result.promotion.opening_verdict, 'no-line');
  assert.equal(result.serving_version, result.version);
  assert.equal((await registry.resolve('champion'))?.version, result.version);
  assert.equal((await registry.resolve('champion'))?.params.guard_market, 'ou25');
  // The markets file is in the draft run, not at the served (legacy) key.
  assert.equal(await env.deps.store.head(KEYS.markets.bucket, KEYS.markets.key), null);
  const record = await readRunRecord(env.deps.db, draftId);
  assert.equal(record?.status, 'draft');
  assert.ok(record?.artifacts.markets, 'the draft run holds the markets file');
  assert.ok(record?.stages.goals, 'the stage is recorded');
});
