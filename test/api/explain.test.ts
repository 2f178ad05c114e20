// GET /predict/explain/{id} after a real first run (champion, walk-forward folds, market-free
// fallback): the parts of every explanation add up to the served probabilities, for each kind of row.
// The exports and the backtest view, which share the explanations' rows, are checked on the same run.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/api/app.js';
import type { AppContext } from '../../src/api/context.js';
import { createPredictionCache } from '../../src/cache/index.js';
import { KEYS } from '../../src/domain/index.js';
import { bootstrapFirstRun } from '../../src/pipeline/index.js';
import { createTaskQueue } from '../../src/queue/index.js';
import { createServingViews } from '../../src/serving/index.js';
import { type ParquetRow, readParquet, writeParquet } from '../../src/storage/index.js';
import { TEST_API_KEY } from '../helpers/app-context.js';
import { servedStoreView } from '../helpers/served.js';
import { openTestEnv, smallLeague, type TestEnv } from '../pipeline/fixtures.js';

const AS_OF = new Date('2023-09-15T00:00:00Z');
const BACKTEST_FROM = new Date('2022-08-01T00:00:00Z');
const KEY = { 'x-api-key': TEST_API_KEY };

type Outcomes = { home: number; draw: number; away: number };
interface Body {
  match_id: number;
  model_stage: string;
  model_run_id: string;
  model_version: string | null;
  link: 'softmax' | 'ordered_logit';
  baseline: Outcomes | null;
  offset: Outcomes | null;
  cut_points: { c1: number; c2: number } | null;
  groups: { group: string; columns: string[]; scores: Outcomes | null; latent: number | null }[];
  served: Outcomes;
  reproduces_served: boolean;
  market: { odds_observed_at: string | null; prices: Outcomes | null; fair: Outcomes | null };
  code?: string;
}

const SIDES = ['home', 'draw', 'away'] as const;
const sig = (t: number) => 1 / (1 + Math.exp(-t));

/** The probabilities as a client recomputes them from the documented sums, nothing else. */
function recompute(b: Body): number[] {
  if (b.link === 'softmax') {
    const s = SIDES.map(
      (k) => b.baseline![k] + (b.offset?.[k] ?? 0) + b.groups.reduce((a, g) => a + (g.scores?.[k] ?? 0), 0),
    );
    const e = s.map((x) => Math.exp(x - Math.max(...s)));
    const t = e[0] + e[1] + e[2];
    return e.map((x) => x / t);
  }
  const eta = b.groups.reduce((a, g) => a + (g.latent ?? 0), 0);
  const f1 = sig(b.cut_points!.c1 - eta);
  const f2 = sig(b.cut_points!.c2 - eta);
  return [1 - f2, f2 - f1, f1];
}

describe('GET /predict/explain/{match_id}', () => {
  let env: TestEnv;
  let app: FastifyInstance;
  let preds: ParquetRow[];
  const hidden = new Set<number>();
  before(async () => {
    env = await openTestEnv(smallLeague(), { API_KEY: TEST_API_KEY });
    // Hide every 5th match's odds, so the fallback scores some rows and walks forward others.
    const obj = await env.deps.store.get(KEYS.odds.bucket, KEYS.odds.key);
    const rows = await readParquet(obj!.body);
    for (const id of env.ids) if (id % 5 === 0) hidden.add(id);
    const cols = [
      { name: 'match_id', type: 'int64' as const },
      ...['odd', 'open', 'close'].flatMap((p) =>
        ['home', 'draw', 'away'].map((s) => ({ name: `${p}_${s}`, type: 'double' as const })),
      ),
      { name: 'source', type: 'string' as const },
    ];
    await env.deps.store.put(
      KEYS.odds.bucket,
      KEYS.odds.key,
      writeParquet(
        cols,
        rows.filter((r) => !hidden.has(Number(r.match_id))),
      ),
    );
    await bootstrapFirstRun(env.deps, AS_OF, { backtestFrom: BACKTEST_FROM, refitDays: 60, analytics: {} });
    const store = servedStoreView(env.deps);
    preds = await readParquet((await store.get(KEYS.predictions.bucket, KEYS.predictions.key))!.body);
    const { config, log, db } = env.deps;
    const ctx: AppContext = {
      config,
      log,
      db,
      store: env.deps.store,
      queue: await createTaskQueue(config, { log }),
      cache: await createPredictionCache(config, log),
      registry: env.deps.registry,
      views: createServingViews({ db, store: env.deps.store }, config, log),
    };
    app = await buildApp(ctx, { logRequests: false });
    app.addHook('onClose', async () => {
      await Promise.allSettled([ctx.queue.close(), ctx.cache.close(), ctx.views.close()]);
    });
    await app.ready();
  });
  after(async () => {
    await app?.close();
    await env?.close();
  });

  const get = async (id: number, headers: Record<string, string> = KEY) => {
    const res = await app.inject({ method: 'GET', url: `/predict/explain/${id}`, headers });
    return { status: res.statusCode, body: res.json() as Body };
  };

  test('every kind of served row: the parts reproduce the served probabilities within 1e-9', async () => {
    const byStage = new Map<string, ParquetRow[]>();
    for (const p of preds)
      byStage.set(String(p.model_stage), [...(byStage.get(String(p.model_stage)) ?? []), p]);
    // A fold of the champion's recipe and of the fallback's are both `backtest` rows.
    const walkedFallback = (byStage.get('backtest') ?? []).filter((p) => hidden.has(Number(p.match_id)));
    assert.ok(walkedFallback.length > 0, 'the fallback walked forward some rows');
    for (const stage of ['champion', 'backtest', 'fallback']) assert.ok(byStage.get(stage)?.length, stage);
    let checked = 0;
    const picks = [
      ...['champion', 'backtest', 'fallback'].flatMap((s) => byStage.get(s)!.filter((_, i) => i % 7 === 0)),
      ...walkedFallback.slice(0, 5),
    ];
    const folds = new Set<string>();
    for (const p of picks) {
      const id = Number(p.match_id);
      const { status, body } = await get(id);
      assert.equal(status, 200, JSON.stringify(body));
      assert.equal(body.model_stage, p.model_stage);
      assert.equal(body.model_run_id, p.model_run_id);
      assert.equal(body.model_version === null, p.model_stage === 'backtest');
      if (p.model_stage === 'backtest') folds.add(body.model_run_id);
      const served = [Number(p.proba_home), Number(p.proba_draw), Number(p.proba_away)];
      assert.deepEqual(
        SIDES.map((k) => body.served[k]),
        served,
      );
      const again = recompute(body);
      for (let k = 0; k < 3; k++)
        assert.ok(Math.abs(again[k] - served[k]) <= 1e-9, `${id}: ${again} vs ${served}`);
      assert.equal(body.reproduces_served, true);
      // Groups are the feature groups; the fallback sees no market group of the match's own odds.
      const groups = body.groups.map((g) => g.group);
      assert.ok(groups.includes('elo'), groups.join());
      assert.equal(groups.includes('market'), p.model_stage !== 'fallback' && !hidden.has(id));
      if (hidden.has(id)) assert.equal(body.market.prices, null);
      else {
        assert.ok(body.market.fair, 'the market view the prediction used');
        const s = body.market.fair.home + body.market.fair.draw + body.market.fair.away;
        assert.ok(Math.abs(s - 1) < 1e-9);
      }
      checked++;
    }
    assert.ok(checked >= 10, `checked ${checked}`);
    assert.ok(folds.size >= 2, 'rows of several folds explained');
  });

  test('a known match with no served row → 404 MC_ERR_NO_EXPLANATION; unknown id → 404 MC_ERR_MATCH_NOT_FOUND', async () => {
    const served = new Set(preds.map((p) => Number(p.match_id)));
    const omitted = env.ids.find((id) => !served.has(id));
    assert.ok(omitted !== undefined, 'matches before the backtest window are left out of the file');
    const none = await get(omitted);
    assert.equal(none.status, 404);
    assert.equal(none.body.code, 'MC_ERR_NO_EXPLANATION');
    const unknown = await get(99_999_999);
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.code, 'MC_ERR_MATCH_NOT_FOUND');
    const noKey = await get(Number(preds[0].match_id), {});
    assert.equal(noKey.status, 401);
  });

  test('the bets export and the backtest view count the same bets, whole and by region', async () => {
    const csv = await app.inject({ method: 'GET', url: '/predict/export/bets?format=csv', headers: KEY });
    assert.equal(csv.statusCode, 200, csv.body.slice(0, 200));
    const [header, ...lines] = csv.body.trim().split('\n');
    const cols = header.split(',');
    assert.ok(lines.length > 0, 'bets exported');
    const at = (name: string) => cols.indexOf(name);
    const plans = new Map<string, number>();
    const regions = new Map<string, number>();
    for (const line of lines) {
      const cells = line.split(',');
      const plan = [at('strategy'), at('staking'), at('market')].map((i) => cells[i]).join('|');
      plans.set(plan, (plans.get(plan) ?? 0) + 1);
      regions.set(cells[at('region_id')], (regions.get(cells[at('region_id')]) ?? 0) + 1);
    }
    const summary = await app.inject({ method: 'GET', url: '/monitoring/backtest' });
    assert.equal(summary.statusCode, 200);
    const rows = summary.json().bets as {
      strategy: string;
      staking: string;
      market: string;
      season: string;
      region_id: number | null;
      n_bets: number;
    }[];
    const whole = rows.filter((r) => r.season === 'all' && r.region_id === null);
    assert.equal(whole.length, plans.size, 'one "all" row per plan');
    for (const r of whole) assert.equal(r.n_bets, plans.get(`${r.strategy}|${r.staking}|${r.market}`));
    const [regionId, n] = [...regions][0];
    const one = await app.inject({
      method: 'GET',
      url: `/predict/export/bets?format=csv&region=${regionId}`,
      headers: KEY,
    });
    assert.equal(one.statusCode, 200);
    assert.equal(one.body.trim().split('\n').length - 1, n, `bets of region ${regionId}`);
  });
});
