// Realised performance: a synthetic league replayed week by week through the real pipeline
// (features → train → promote → backtest → predict → performance → served log), results released by
// the as-of clock, and every figure checked against an independent recomputation from the raw league
// data — the served prediction picked by the test itself, its own log loss / RPS / Brier and its own
// power de-margining.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import Fastify, { type FastifyInstance } from 'fastify';
import {
  recordServedFromPublished,
  recordServedPredictions,
  runPerformanceStage,
} from '../../src/analytics/index.js';
import { readServedLog, servedBeforeKickoff } from '../../src/analytics/performance-served.js';
import type { PerformanceSummary } from '../../src/analytics/performance-stage.js';
import type { AppContext } from '../../src/api/context.js';
import { registerErrorHandling } from '../../src/api/plugins/errors.js';
import { monitoringPerformanceRoutes } from '../../src/api/routes/monitoring-performance.js';
import { monitoringReportsRoutes } from '../../src/api/routes/monitoring-reports.js';
import { parseConfig } from '../../src/config.js';
import { registry as metricsRegistry } from '../../src/metrics.js';
import { runPipeline } from '../../src/pipeline/index.js';
import { createObjectStore } from '../../src/storage/index.js';
import { type LeagueMatch, openTestEnv, smallLeague, type TestEnv } from '../pipeline/fixtures.js';

const DAY = 86_400_000;
const exec = promisify(execFile);

/** Power de-margining by bisection (the product uses Newton): Σ (1/o)^k = 1. */
function powerFair(odds: readonly number[]): number[] {
  const r = odds.map((o) => 1 / o);
  let lo = 0.5;
  let hi = 2;
  for (let i = 0; i < 200; i++) {
    const k = (lo + hi) / 2;
    const s = r.reduce((a, x) => a + x ** k, 0);
    if (s > 1) lo = k;
    else hi = k;
  }
  const p = r.map((x) => x ** ((lo + hi) / 2));
  const s = p.reduce((a, b) => a + b, 0);
  return p.map((x) => x / s);
}

function label(m: LeagueMatch): number {
  const h = m.match.homeScore as number;
  const a = m.match.awayScore as number;
  return h > a ? 0 : h === a ? 1 : 2;
}

interface Expected {
  n: number;
  log_loss: number;
  rps: number;
  brier: number;
  line: number;
}

function expectedFigures(rows: Array<{ p: number[]; y: number; line: number[] }>): Expected {
  let ll = 0;
  let rp = 0;
  let br = 0;
  let line = 0;
  for (const { p, y, line: q } of rows) {
    ll += -Math.log(p[y]);
    line += -Math.log(q[y]);
    const c1 = p[0] - (y === 0 ? 1 : 0);
    const c2 = p[0] + p[1] - (y <= 1 ? 1 : 0);
    rp += (c1 ** 2 + c2 ** 2) / 2;
    for (let k = 0; k < 3; k++) br += (p[k] - (y === k ? 1 : 0)) ** 2;
  }
  const n = rows.length;
  return { n, log_loss: ll / n, rps: rp / n, brier: br / n, line: line / n };
}

describe('realised performance replayed over a synthetic season', () => {
  const league = smallLeague({ seasons: 3, teams: 8, seed: 11 });
  let env: TestEnv;
  let app: FastifyInstance;
  // What each run published: its as-of and the future rows it served (the test's own record).
  const publications: Array<{ asOf: Date; probs: Map<number, number[]> }> = [];
  const summaries: PerformanceSummary[] = [];
  const asOfs = [0, 7, 14, 28].map((d) => new Date(Date.UTC(2023, 7, 1) + d * DAY));

  before(async () => {
    env = await openTestEnv(league, { PERFORMANCE_WINDOW_MATCHES: '0' });
    for (const asOf of asOfs) {
      const result = await runPipeline(env.deps, asOf, {
        refitDays: 180,
        analytics: {
          performance: (deps, at) => runPerformanceStage(deps, { asOf: at }),
          served: (deps, at, predict, featureRows) =>
            recordServedPredictions(deps.store, predict.predictionRows, {
              servedAt: at,
              publicationId: `replay-${at.toISOString()}`,
              featureRows,
            }),
        },
        afterPromote: async (promote) => {
          // The first version is signed off whatever the guard said (as a first start does).
          if (promote.version && !(await env.deps.registry.resolve('champion'))) {
            await env.deps.registry.setAlias(
              'champion',
              promote.version,
              'test',
              'first champion of the replay',
            );
          }
        },
      });
      summaries.push(result.performance as PerformanceSummary);
      const probs = new Map<number, number[]>();
      for (const r of result.predict?.predictionRows ?? []) {
        if (r.model_stage === 'champion' && r.start_time_utc > asOf) {
          probs.set(r.match_id, [r.proba_home, r.proba_draw, r.proba_away]);
        }
      }
      publications.push({ asOf, probs });
    }
    app = Fastify({ logger: false }) as unknown as FastifyInstance;
    registerErrorHandling(app);
    const ctx = {
      config: env.config,
      db: env.deps.db,
      store: env.deps.store,
      log: env.deps.log,
    } as unknown as AppContext;
    await monitoringPerformanceRoutes(app, ctx);
    await monitoringReportsRoutes(app, ctx);
    await app.ready();
  });
  after(async () => {
    await app?.close();
    await env?.close();
  });

  /** The test's own join: the prediction of the newest publication before kick-off, results before as-of. */
  function recompute(asOf: Date, region?: string) {
    const rows: Array<{ p: number[]; y: number; line: number[] }> = [];
    league.forEach((m, i) => {
      const start = m.match.startTimeUtc;
      if (start >= asOf || (region && m.match.regionName !== region)) return;
      const pub = publications.filter((p) => p.asOf < start && p.probs.has(env.ids[i])).at(-1);
      if (!pub) return;
      rows.push({ p: pub.probs.get(env.ids[i])!, y: label(m), line: powerFair(m.odds) });
    });
    return expectedFigures(rows);
  }

  test('figures appear as results are released and agree with the recomputation', () => {
    assert.equal(summaries.length, asOfs.length);
    assert.equal(summaries[0].groups[0].n, 0, 'nothing served has finished at the first run');
    const ns = summaries.map((s) => s.groups[0].n);
    for (let k = 1; k < ns.length; k++) assert.ok(ns[k] > ns[k - 1], `n grows with released results: ${ns}`);
    summaries.forEach((s, k) => {
      for (const g of s.groups) {
        const e = recompute(asOfs[k], g.region_id === null ? undefined : g.region_name);
        assert.equal(g.n, e.n, `run ${k} ${g.region_name}: n`);
        if (e.n === 0) continue;
        assert.ok(
          Math.abs((g.log_loss as number) - e.log_loss) < 1e-9,
          `log loss ${g.log_loss} vs ${e.log_loss}`,
        );
        assert.ok(Math.abs((g.rps as number) - e.rps) < 1e-9);
        assert.ok(Math.abs((g.brier as number) - e.brier) < 1e-9);
        assert.equal(g.opening.n, e.n);
        assert.ok(Math.abs((g.opening.line_log_loss as number) - e.line) < 1e-6, 'opening line');
        assert.ok(Math.abs((g.closing.line_log_loss as number) - e.line) < 1e-6, 'closing line');
        assert.ok(Math.abs((g.opening.edge_log_loss as number) - (e.line - e.log_loss)) < 1e-6);
        const rel = g.reliability.reduce((a, b) => a + b.n, 0);
        assert.equal(rel, 3 * e.n, 'reliability pools three outcomes per match');
      }
    });
    assert.deepEqual(
      summaries.at(-1)!.groups.map((g) => g.region_name),
      ['all', 'Northland', 'Southland'],
    );
  });

  test('backtest rows are marked and kept apart from the served figures', () => {
    const last = summaries.at(-1)!;
    assert.ok(last.backtest, 'the published predictions hold backtest rows');
    assert.equal(last.backtest.kind, 'backtest');
    assert.ok(last.backtest.n > last.groups[0].n, 'backtest covers the past seasons');
    // The count shown beside the backtest figures is the number of rows they are computed on.
    assert.equal(last.backtest.groups[0].n, last.backtest.n);
    const regions = last.backtest.groups.slice(1).reduce((a, g) => a + g.n, 0);
    assert.equal(regions, last.backtest.n, 'the regions add up to the whole backtest');
    assert.notEqual(last.backtest.groups[0].log_loss, last.groups[0].log_loss);
  });

  test('the served log holds only future champion rows; a later publication before kick-off wins', async () => {
    const served = await readServedLog(env.deps.store);
    assert.ok(served.length > 0);
    for (const r of served) assert.ok(r.start_time_utc > r.served_at, 'served before kick-off');
    assert.ok(served.every((r) => r.model_stage !== 'backtest'));
    assert.ok(
      served.some((r) => r.used_open_home !== null),
      'the odds each row used are kept',
    );
    const picked = servedBeforeKickoff(served);
    const second = asOfs[1];
    const m = league.findIndex((l) => l.match.startTimeUtc > second && l.match.startTimeUtc < asOfs[2]);
    assert.equal(picked.get(env.ids[m])?.served_at.getTime(), second.getTime());
  });

  test('GET /monitoring/performance and the gauges show the same figures; promtool check metrics', async (t) => {
    const res = await app.inject({ method: 'GET', url: '/monitoring/performance' });
    assert.equal(res.statusCode, 200);
    const body = res.json() as PerformanceSummary & { available: boolean };
    assert.equal(body.available, true);
    const last = summaries.at(-1)!;
    assert.equal(body.groups[0].n, last.groups[0].n);
    assert.equal(body.groups[0].log_loss, last.groups[0].log_loss);
    const text = await metricsRegistry.metrics();
    const gauge = (name: string, labels: string) => {
      const m = text.match(new RegExp(`^${name}\\{${labels}\\} (\\S+)$`, 'm'));
      return m ? Number(m[1]) : undefined;
    };
    for (const g of body.groups) {
      const r = `region="${g.region_name}"`;
      assert.equal(gauge('matchcast_realised_log_loss', r), g.log_loss);
      assert.equal(gauge('matchcast_realised_matches', r), g.n);
      assert.equal(
        gauge('matchcast_realised_edge_log_loss', `region="${g.region_name}",line="opening"`),
        g.opening.edge_log_loss,
      );
    }
    // No drift report in this store: the summary is null and the gauge is NaN, never 0.
    const drift = await app.inject({ method: 'GET', url: '/monitoring/drift' });
    assert.equal(drift.json().drift_score, null);
    assert.match(text, /^model_feature_drift_score nan$/im);

    const promtool = ['/usr/bin/promtool', '/usr/local/bin/promtool'].find((p) => existsSync(p));
    if (!promtool) {
      t.skip('promtool not installed (apt-get install -y prometheus): exposition not linted');
      return;
    }
    const file = path.join(env.dir, 'metrics.txt');
    await writeFile(file, text);
    const { stdout, stderr } = await exec('sh', ['-c', `${promtool} check metrics < ${file}`]).catch(
      (err: { stdout: string; stderr: string }) =>
        assert.fail(`promtool check metrics failed:\n${err.stdout}\n${err.stderr}`),
    );
    assert.equal(`${stdout}${stderr}`.trim(), '');
  });

  test('runs publish / rollback path: the published predictions file is logged as served from then on', async () => {
    const at = asOfs.at(-1)!;
    const res = await recordServedFromPublished(env.deps, {
      servedAt: at,
      publicationId: 'rollback-x',
    });
    assert.equal(res.rows, publications.at(-1)!.probs.size, 'the future rows of the published file');
    const logged = (await readServedLog(env.deps.store)).filter((r) => r.publication_id === 'rollback-x');
    for (const r of logged)
      assert.deepEqual(
        [r.proba_home, r.proba_draw, r.proba_away],
        publications.at(-1)!.probs.get(r.match_id),
      );
  });

  test('last_new_result_at moves only when new results were seen (the no-results alert input)', async () => {
    const at = asOfs.at(-1)!;
    const t1 = new Date('2030-01-01T00:00:00Z');
    const first = await runPerformanceStage(env.deps, { asOf: at, now: t1 });
    const same = await runPerformanceStage(env.deps, { asOf: at, now: new Date('2030-01-02T00:00:00Z') });
    assert.equal(same.results.n_finished, first.results.n_finished);
    assert.equal(same.results.last_new_result_at, first.results.last_new_result_at, 'nothing new: kept');
    const later = await runPerformanceStage(env.deps, {
      asOf: new Date(at.getTime() + 7 * DAY),
      now: new Date('2030-01-03T00:00:00Z'),
    });
    assert.ok(later.results.n_finished > same.results.n_finished);
    assert.equal(later.results.last_new_result_at, '2030-01-03T00:00:00.000Z', 'new results: moved');
  });

  test('the HTML report is listed with the drift reports and is self-contained', async () => {
    const list = (await app.inject({ method: 'GET', url: '/monitoring/reports' })).json() as Array<{
      filename: string;
    }>;
    const name = summaries.at(-1)!.report_filename!;
    assert.ok(
      list.some((e) => e.filename === name),
      `${name} listed`,
    );
    const html = (await env.deps.store.get('reports', name))!.body.toString('utf8');
    assert.match(html, /^<!DOCTYPE html>/);
    assert.doesNotMatch(html, /<script|https?:\/\/(?!www\.w3\.org)/i);
    assert.match(html, /Backtest \(walk-forward, NOT served\)/);
  });
});

describe('served log edge cases', () => {
  test('rows at or after their kick-off and backtest rows are never logged; rescheduled matches use the DB kick-off', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'mc-served-'));
    const store = createObjectStore(parseConfig({ DATA_DIR: dir }));
    try {
      const t0 = new Date(Date.UTC(2021, 7, 1));
      const base = {
        region_id: 1,
        region_name: 'Northland',
        proba_home: 0.5,
        proba_draw: 0.3,
        proba_away: 0.2,
        model_run_id: 'r1',
      };
      const res = await recordServedPredictions(
        store,
        [
          { ...base, match_id: 1, start_time_utc: new Date(t0.getTime() + DAY), model_stage: 'champion' },
          { ...base, match_id: 2, start_time_utc: t0, model_stage: 'champion' },
          { ...base, match_id: 3, start_time_utc: new Date(t0.getTime() + DAY), model_stage: 'backtest' },
        ],
        { servedAt: t0, publicationId: 'p1' },
      );
      assert.equal(res.rows, 1);
      const rows = await readServedLog(store);
      assert.deepEqual(
        rows.map((r) => r.match_id),
        [1],
      );
      assert.equal(servedBeforeKickoff(rows).size, 1);
      // Moved to before the publication: nothing was served before its (new) kick-off.
      assert.equal(servedBeforeKickoff(rows, () => new Date(t0.getTime() - DAY)).size, 0);
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
