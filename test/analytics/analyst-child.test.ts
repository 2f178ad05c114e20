// The analyst rows computed in their own process (as the API does where one can reach the same
// database) equal the rows computed in this thread from the same published run; a process that reads
// another published run than the caller's refuses.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { analystBets, exportRows } from '../../src/analytics/analyst-data.js';
import {
  backtestSummary,
  computeAnalystData,
  computeAnalystDataOffThread,
  computeBacktestSummaryOffThread,
  loadAnalystSources,
  PublishedCache,
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
  assert.ok(here.backtest.length > 0 && here.predictions.length > 0 && analystBets(here).length > 0);
  assert.deepEqual(there, here);
  // The server's copy holds one Date per instant: as many Date objects as distinct times.
  const dates = [...there.predictions, ...there.backtest].flatMap((r) =>
    Object.values(r).filter((v): v is Date => v instanceof Date),
  );
  const instants = new Set(dates.map((d) => d.getTime()));
  assert.ok(dates.length > instants.size, 'instants repeat across rows');
  assert.equal(new Set(dates).size, instants.size, 'one Date object per instant');
  // Bets held by one reader are shared with the next, not simulated again.
  const bets = analystBets(there);
  assert.equal(analystBets(there), bets);
});

test('the backtest view counts exactly the rows of the bets export, from the rows the process sent', async () => {
  const runId = (await readPublished(fx.db))?.run_id ?? null;
  const data = await computeAnalystDataOffThread(fx.config, runId, fx.db.schema);
  const exported = exportRows(data, 'bets');
  assert.ok(exported.length > 0, 'bets exported');
  const here = computeAnalystData(await loadAnalystSources(fx.store, fx.db), fx.config.edgeThreshold);
  assert.deepEqual(exported, exportRows(here, 'bets'), 'the same bets as from the sources');
  // Every (season, region) cell and its "all" margins, counted from the exported rows.
  const counted = new Map<string, number>();
  const count = (k: string) => counted.set(k, (counted.get(k) ?? 0) + 1);
  for (const r of exported) {
    const plan = `${r.strategy}|${r.staking}|${r.market}`;
    for (const season of ['all', String(r.season)])
      for (const region of ['null', String(r.region_id)]) count(`${plan}|${season}|${region}`);
  }
  const summary = backtestSummary(data);
  assert.equal(summary.bets.length, counted.size, 'one summary row per plan, season and region');
  for (const row of summary.bets) {
    const k = `${row.strategy}|${row.staking}|${row.market}|${row.season}|${row.region_id}`;
    assert.equal(row.n_bets, counted.get(k), k);
  }
});

test('the backtest figures from the analyst process equal those computed here from the rows', async () => {
  const runId = (await readPublished(fx.db))?.run_id ?? null;
  const here = computeAnalystData(await loadAnalystSources(fx.store, fx.db), fx.config.edgeThreshold);
  const there = await computeBacktestSummaryOffThread(fx.config, runId, fx.db.schema);
  assert.ok(there.available && there.n_matches > 0);
  assert.deepEqual(there, backtestSummary(here));
  await assert.rejects(computeBacktestSummaryOffThread(fx.config, 'another-run', fx.db.schema), /expected/);
});

test('a published-run cache lets an idle value go, and keeps one in use', async () => {
  let computed = 0;
  const cache = new PublishedCache(fx.db, async () => ({ n: ++computed }), 150);
  const first = await cache.get();
  assert.equal(await cache.get(), first, 'shared while in use');
  await new Promise((r) => setTimeout(r, 300));
  const again = await cache.get();
  assert.notEqual(again, first, 'recomputed after the idle time');
  assert.equal(computed, 2);
  const kept = new PublishedCache(fx.db, async () => ({ n: ++computed }));
  const one = await kept.get();
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(await kept.get(), one, 'without an idle time a value stays');
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
  await computeBacktestSummaryOffThread(fx.config, runId, fx.db.schema);
  await assert.rejects(computeAnalystDataOffThread(fx.config, 'another-run', fx.db.schema));
  for (let i = 0; i < 50 && analystChildren().length > 0; i++) await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(analystChildren(), []);
});
