// The analyst rows computed in their own process (as the API does where one can reach the same
// database) equal the rows computed in this thread from the same published run; a process that reads
// another published run than the caller's refuses.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
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

test('the rows from the analyst process equal the rows computed in this thread', async () => {
  const runId = (await readPublished(fx.db))?.run_id ?? null;
  assert.ok(runId, 'a run is published');
  const here = computeAnalystData(await loadAnalystSources(fx.store, fx.db), fx.config.edgeThreshold);
  const there = await computeAnalystDataOffThread(fx.config, runId, fx.db.schema);
  assert.ok(here.backtest.length > 0 && here.predictions.length > 0 && here.bets.length > 0);
  assert.deepEqual(there, here);
});

test('a process that sees another published run refuses', async () => {
  await assert.rejects(
    computeAnalystDataOffThread(fx.config, 'not-the-published-run', fx.db.schema),
    /expected/,
  );
});

/** Command lines of this process's children that run the analyst child. */
function analystChildren(): string[] {
  const out: string[] = [];
  for (const task of readdirSync(`/proc/${process.pid}/task`)) {
    const kids = readFileSync(`/proc/${process.pid}/task/${task}/children`, 'utf8').trim().split(/\s+/);
    for (const pid of kids.filter(Boolean)) {
      try {
        const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
        if (cmd.includes('analyst-child')) out.push(cmd);
      } catch {
        // gone meanwhile
      }
    }
  }
  return out;
}

test('no analyst process outlives its answer', async () => {
  const runId = (await readPublished(fx.db))?.run_id ?? null;
  await computeAnalystDataOffThread(fx.config, runId, fx.db.schema);
  await assert.rejects(computeAnalystDataOffThread(fx.config, 'another-run', fx.db.schema));
  for (let i = 0; i < 50 && analystChildren().length > 0; i++) await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(analystChildren(), []);
});
