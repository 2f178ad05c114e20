// Live goals markets: `GET /predict/markets/{id}?live=true` through the `ml` queue —
// in-process worker threads, and BullMQ on real Redis with a spawned worker process (REDIS_URL) — agree
// with the precomputed markets of the same run, add up, are cached per goals run, and answer coded errors.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import { type OddsObservation, OddsTimeline } from '../../src/domain/index.js';
import { mergeOddsObservations } from '../../src/ingest/observations-file.js';
import { createLogger } from '../../src/logger.js';
import { predictionRequestsTotal } from '../../src/metrics.js';
import * as goals from '../../src/model/index.js';
import { createRegistry } from '../../src/registry/index.js';
import { oddsRecordAt } from '../../src/worker/goals-table.js';
import { createDefaultWorkerDeps, createWorkerRuntime } from '../../src/worker/index.js';
import { publishArtifacts } from '../helpers/served.js';
import { spawnWorker, type WorkerProcess } from '../worker/app-harness.js';
import { uniqueQueue } from '../worker/fixtures.js';
import {
  createGoalsFixture,
  type GoalsFixture,
  type GoalsLiveApp,
  startGoalsApp,
} from '../worker/goals-fixture.js';

const TOL = 1e-9;

async function syncCount(): Promise<number> {
  const { values } = await predictionRequestsTotal.get();
  return values.find((v) => v.labels.source === 'sync')?.value ?? 0;
}

/** Every number of the precomputed body equals the live one (within TOL); strings/nulls exactly. */
function assertAgree(pre: unknown, live: unknown, where: string): void {
  if (typeof pre === 'number') {
    assert.equal(typeof live, 'number', where);
    assert.ok(Math.abs(pre - (live as number)) <= TOL, `${where}: ${pre} vs ${String(live)}`);
    return;
  }
  if (pre && typeof pre === 'object') {
    for (const [k, v] of Object.entries(pre)) {
      assertAgree(v, (live as Record<string, unknown>)[k], `${where}.${k}`);
    }
    return;
  }
  assert.deepEqual(live, pre, where);
}

/** over + under = 1 on every line, the matrix sums to 1 and reproduces its 1X2 and O/U 2.5. */
function assertAddsUp(b: Record<string, unknown>): void {
  const over = b.over as Record<string, number>;
  const under = b.under as Record<string, number>;
  for (const line of Object.keys(over)) assert.ok(Math.abs(over[line] + under[line] - 1) < 1e-12, line);
  const m = b.score_matrix as number[][];
  assert.equal(m.length, 11);
  let sum = 0;
  let home = 0;
  let overs = 0;
  m.forEach((row, h) => {
    row.forEach((p, a) => {
      sum += p;
      if (h > a) home += p;
      if (h + a > 2.5) overs += p;
    });
  });
  assert.ok(Math.abs(sum - 1) < 1e-12, `matrix sums to ${sum}`);
  assert.ok(Math.abs(home - (b.proba_home as number)) < 1e-12);
  assert.ok(Math.abs(overs - over['2.5']) < 1e-12);
  assert.ok(Math.abs((b.btts_yes as number) + (b.btts_no as number) - 1) < 1e-12);
}

/** The shared checks, run against each queue backend. */
function liveMarketsSuite(name: string, setup: () => Promise<{ fx: GoalsFixture; live: GoalsLiveApp }>) {
  describe(name, () => {
    let fx: GoalsFixture;
    let live: GoalsLiveApp;
    before(async () => {
      ({ fx, live } = await setup());
    });

    test('live agrees with the precomputed markets of the same run (champion and walk-forward rows); matrix adds up', async () => {
      const champion = fx.markets.filter((r) => r.model_stage === 'champion');
      const backtest = fx.markets.filter((r) => r.model_stage === 'backtest');
      assert.ok(champion.length > 5 && backtest.length > 5, `${champion.length} / ${backtest.length}`);
      const goalsChampion = await fx.goalsRegistry.resolve('champion');
      const sample = [...champion.slice(0, 6), ...backtest.slice(0, 3), ...backtest.slice(-3)];
      for (const row of sample) {
        const pre = await live.get(`/predict/markets/${row.match_id}`);
        assert.equal(pre.status, 200, JSON.stringify(pre.body));
        const res = await live.get(`/predict/markets/${row.match_id}?live=true&matrix=true`);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assertAgree(pre.body, res.body, `match ${row.match_id}`);
        assertAddsUp(res.body);
        assert.equal(res.body.model_version, `goals/v${goalsChampion?.version}`);
        assert.equal(
          res.body.prediction_source,
          row.model_stage === 'champion' ? 'model' : 'walk_forward_backtest',
        );
        assert.equal(typeof res.body.prediction_time, 'string');
        // The precomputed body is unchanged: no live field unless asked for.
        assert.equal(pre.body.cached, undefined);
        assert.equal(pre.body.prediction_source, undefined);
      }
    });

    test('a second call is a cache hit (keyed by goals run and features run) and dispatches nothing', async () => {
      const id = fx.markets.find((r) => r.model_stage === 'champion')!.match_id;
      const first = await live.get(`/predict/markets/${id}?live=true`);
      assert.equal(first.status, 200);
      const n = await syncCount();
      const second = await live.get(`/predict/markets/${id}?live=true`);
      assert.equal(second.body.cached, true);
      assert.equal(await syncCount(), n);
      assert.deepEqual({ ...second.body, cached: false }, { ...first.body, cached: false });
      const goalsRun = (await fx.goalsRegistry.resolve('champion'))!.run_id;
      const keys = await (live.cache as unknown as { keys?: () => Promise<string[]> }).keys?.();
      if (keys)
        assert.ok(
          keys.some((k) => k.startsWith(`predict:${id}:${goalsRun}:goals:`)),
          keys.join(),
        );
    });

    test('coded errors: unknown match 404, match before the walk-forward window 409', async () => {
      const missing = await live.get('/predict/markets/99999999?live=true');
      assert.equal(missing.status, 404);
      assert.equal(missing.body.code, 'MC_ERR_MATCH_NOT_FOUND');
      // The oldest matches are in the features but neither in the walk-forward nor after the cut-off.
      const served = new Set(fx.markets.map((r) => r.match_id));
      let old: number | null = null;
      for (let id = 1; id < 2000 && old === null; id++) if (!served.has(id)) old = id;
      assert.ok(old !== null);
      const res = await live.get(`/predict/markets/${old}?live=true`);
      assert.equal(res.status, 409, JSON.stringify(res.body));
      assert.equal(res.body.code, 'MC_ERR_NOT_OUT_OF_SAMPLE');
    });

    test('no goals model registered: 503 MC_ERR_GOALS_MODEL_UNAVAILABLE at once', async () => {
      const id = fx.markets.find((r) => r.model_stage === 'champion')!.match_id;
      const v = await fx.goalsRegistry.resolve('champion');
      await fx.goalsRegistry.deleteAlias('champion', 'test');
      try {
        await new Promise((r) => setTimeout(r, fx.config.aliasRefreshMs + 30));
        const res = await live.get(`/predict/markets/${id}?live=true`);
        assert.equal(res.status, 503, JSON.stringify(res.body));
        assert.equal(res.body.code, 'MC_ERR_GOALS_MODEL_UNAVAILABLE');
      } finally {
        await fx.goalsRegistry.setAlias('champion', v!.version, 'test');
      }
    });
  });
}

let inProcess: { fx: GoalsFixture; live: GoalsLiveApp } | null = null;
liveMarketsSuite('in-process queue (worker threads)', async () => {
  const fx = await createGoalsFixture({
    REDIS_URL: undefined,
    CACHE_URL: undefined,
    PREDICT_TIMEOUT_MS: '20000',
  });
  const live = await startGoalsApp(fx);
  assert.equal(live.queue.kind, 'in-process');
  inProcess = { fx, live };
  return inProcess;
});
after(async () => {
  await inProcess?.live.close();
  await inProcess?.fx.cleanup();
});

// Leakage: the match's own prices are those observed by its prediction time only.
test('point-in-time: a price observed after the prediction time does not reach the goal inputs', () => {
  const at = new Date('2026-03-10T15:00:00Z');
  const obs = (market: '1x2' | 'ou25', minutes: number, prices: number[]): OddsObservation => ({
    match_id: 1,
    market,
    kind: 'intermediate',
    observed_at: new Date(at.getTime() + minutes * 60_000),
    prices,
    source: 'test',
  });
  const before = [obs('1x2', -60, [2.1, 3.4, 3.6]), obs('ou25', -60, [1.9, 1.95])];
  const later = [obs('1x2', 60, [1.4, 4.8, 8.0]), obs('ou25', 60, [1.5, 2.6])];
  const means = (list: OddsObservation[]) =>
    goals.openingMeans(oddsRecordAt({ odds: new Map(), observations: OddsTimeline.from(list) }, 1, at));
  const expected = means(before);
  assert.ok(expected);
  assert.deepEqual(means([...before, ...later]), expected);
  // The later prices do move the means when they are observed in time: the check above can fail.
  const moved = goals.openingMeans(
    oddsRecordAt(
      { odds: new Map(), observations: OddsTimeline.from([...before, ...later]) },
      1,
      new Date(at.getTime() + 3_600_000),
    ),
  );
  assert.notDeepEqual(moved, expected);
  // Observed exactly at the prediction time counts as known.
  assert.deepEqual(means([obs('1x2', 0, [2.1, 3.4, 3.6]), obs('ou25', 0, [1.9, 1.95])]), expected);
});

describe('worker: predict_markets over the in-process fixture', () => {
  const log = createLogger('silent');
  test('a later odds observation of the match leaves its live answer unchanged; an earlier one changes it', async () => {
    const { fx } = inProcess!;
    const row = fx.markets.find((r) => r.model_stage === 'champion')!;
    const first = await createWorkerRuntime(
      await createDefaultWorkerDeps(fx.config, log, { db: fx.db, store: fx.store }),
    ).predictMarkets({
      match_id: row.match_id,
    });
    assert.equal(first.prediction_source, 'model');
    const at = new Date(first.prediction_time!).getTime();
    const later = (market: '1x2' | 'ou25', prices: number[], kind: OddsObservation['kind']) => ({
      match_id: row.match_id,
      market,
      kind,
      observed_at: new Date(at + 3_600_000),
      prices,
      source: 'late-test',
    });
    await mergeOddsObservations(fx, [
      later('1x2', [1.3, 5.5, 11], 'opening'),
      later('ou25', [1.4, 2.9], 'opening'),
      later('1x2', [1.25, 6, 13], 'intermediate'),
      later('ou25', [1.35, 3.1], 'intermediate'),
    ]);
    const second = await createWorkerRuntime(
      await createDefaultWorkerDeps(fx.config, log, { db: fx.db, store: fx.store }),
    ).predictMarkets({
      match_id: row.match_id,
    });
    assert.deepEqual(second.markets, first.markets);
    // The same prices observed before every other price of the match become its opening: the answer moves.
    const early = (market: '1x2' | 'ou25', prices: number[]) => ({
      ...later(market, prices, 'opening'),
      observed_at: new Date(at - 30 * 86_400_000),
      source: 'early-test',
    });
    await mergeOddsObservations(fx, [early('1x2', [1.3, 5.5, 11]), early('ou25', [1.4, 2.9])]);
    const third = await createWorkerRuntime(
      await createDefaultWorkerDeps(fx.config, log, { db: fx.db, store: fx.store }),
    ).predictMarkets({
      match_id: row.match_id,
    });
    assert.notEqual(third.markets.expected_home_goals, first.markets.expected_home_goals);
  });

  test('a worker that serves live markets builds the goal inputs of a newly published run in the background', async () => {
    const { fx } = inProcess!;
    const lines: string[] = [];
    const captured = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
    const built = () => lines.filter((l) => l.includes('goals inputs built')).length;
    const rt = createWorkerRuntime(
      await createDefaultWorkerDeps(fx.config, captured, { db: fx.db, store: fx.store }),
      {
        viewRefreshMs: 1,
      },
    );
    const id = fx.markets.find((r) => r.model_stage === 'champion')!.match_id;
    await rt.predictMarkets({ match_id: id });
    assert.equal(built(), 1);
    // A new publication (a run that inherits every file): the features snapshot is swapped on the next look.
    await publishArtifacts(fx, {});
    await new Promise((r) => setTimeout(r, 5));
    // This call still answers from the old snapshot and only starts the check.
    await rt.predictMarkets({ match_id: id });
    for (let i = 0; i < 400 && built() < 2; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(built(), 2, "the new run's goal inputs were built without a markets call");
  });

  test('no goals model registered: MC_ERR_GOALS_MODEL_UNAVAILABLE from the worker', async () => {
    const { fx } = inProcess!;
    const deps = await createDefaultWorkerDeps(fx.config, log, { db: fx.db, store: fx.store });
    deps.goalsRegistry = createRegistry({ db: fx.db, store: fx.store }, { modelName: 'no-such-goals' });
    await assert.rejects(
      createWorkerRuntime(deps).predictMarkets({ match_id: fx.markets[0].match_id }),
      (err: { code?: string }) => err.code === 'MC_ERR_GOALS_MODEL_UNAVAILABLE',
    );
  });
});

const REDIS_URL = process.env.REDIS_URL;
let redis: { fx: GoalsFixture; live: GoalsLiveApp; worker: WorkerProcess | null } | null = null;
if (REDIS_URL) {
  liveMarketsSuite('BullMQ on Redis with a worker process', async () => {
    const queueName = uniqueQueue();
    const fx = await createGoalsFixture({ REDIS_URL, QUEUE_NAME: queueName, PREDICT_TIMEOUT_MS: '20000' });
    redis = { fx, live: await startGoalsApp(fx), worker: null };
    assert.equal(redis.live.queue.kind, 'bullmq');
    redis.worker = await spawnWorker({ config: fx.config } as Parameters<typeof spawnWorker>[0]);
    return redis;
  });
  after(async () => {
    await redis?.worker?.stop();
    await redis?.live.close();
    await redis?.fx.cleanup();
  });
} else {
  test('BullMQ on Redis: skipped (set REDIS_URL)', { skip: true }, () => {});
}
