// The analyst rows computed on their own thread (as the API does where a thread can reach the same
// database) equal the rows computed in this thread from the same published run; a thread that reads
// another published run than the caller's refuses.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  computeAnalystData,
  computeAnalystDataOffThread,
  loadAnalystSources,
} from '../../src/analytics/index.js';
import { readPublished } from '../../src/runs/index.js';
import { createGoalsFixture, type GoalsFixture } from '../worker/goals-fixture.js';

let fx: GoalsFixture;
before(async () => {
  fx = await createGoalsFixture();
});
after(async () => {
  await fx?.cleanup();
});

test('the rows from the analyst thread equal the rows computed in this thread', async () => {
  const runId = (await readPublished(fx.db))?.run_id ?? null;
  assert.ok(runId, 'a run is published');
  const here = computeAnalystData(await loadAnalystSources(fx.store, fx.db), fx.config.edgeThreshold);
  const there = await computeAnalystDataOffThread(fx.config, runId, fx.db.schema);
  assert.ok(here.backtest.length > 0 && here.predictions.length > 0 && here.bets.length > 0);
  assert.deepEqual(there, here);
});

test('a thread that sees another published run refuses', async () => {
  await assert.rejects(
    computeAnalystDataOffThread(fx.config, 'not-the-published-run', fx.db.schema),
    /expected/,
  );
});
