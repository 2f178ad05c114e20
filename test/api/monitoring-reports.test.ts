import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import type { AppContext } from '../../src/api/context.js';
import { registerErrorHandling } from '../../src/api/plugins/errors.js';
import { filesRoutes } from '../../src/api/routes/files.js';
import { monitoringReportsRoutes } from '../../src/api/routes/monitoring-reports.js';
import { parseConfig } from '../../src/config.js';
import { type Database, openDatabase } from '../../src/db/index.js';
import { createLogger } from '../../src/logger.js';
import { modelFeatureDriftScore } from '../../src/metrics.js';
import { createObjectStore, type ObjectStore } from '../../src/storage/index.js';
import { publishArtifacts } from '../helpers/served.js';

const DRIFT = 'drift_report_20260101T000000Z.html';
const QUALITY = 'data_quality_20260101T000000Z.html';

async function makeApp(
  ttl: string,
): Promise<{ app: FastifyInstance; store: ObjectStore; db: Database; dir: string }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'mc-monitoring-'));
  const config = parseConfig({
    DATA_DIR: dir,
    URL_SIGNING_SECRET: 'b'.repeat(64),
    REPORT_URL_TTL: ttl,
    PUBLIC_BASE_URL: 'http://reports.test',
  });
  const store = createObjectStore(config);
  const db = await openDatabase(config, { memory: true });
  const app = Fastify({
    logger: false,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    ajv: {
      customOptions: { removeAdditional: false, coerceTypes: 'array', allErrors: true, useDefaults: true },
    },
  }) as unknown as FastifyInstance;
  registerErrorHandling(app);
  const ctx = { config, db, store, log: createLogger('silent') } as unknown as AppContext;
  await monitoringReportsRoutes(app, ctx);
  await filesRoutes(app, ctx);
  await app.ready();
  return { app, store, db, dir };
}

/** The path and query of a signed link, to replay it against the in-process app. */
function local(url: string): string {
  const u = new URL(url);
  assert.equal(u.origin, 'http://reports.test');
  return u.pathname + u.search;
}

async function gaugeValue(): Promise<number | undefined> {
  return (await modelFeatureDriftScore.get()).values[0]?.value;
}

describe('monitoring report routes (folder store, HMAC-signed links)', () => {
  let app: FastifyInstance;
  let store: ObjectStore;
  let db: Database;
  let dir: string;
  before(async () => {
    ({ app, store, db, dir } = await makeApp('3600'));
  });
  after(async () => {
    await app.close();
    await store.close();
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('drift is null before any report, then the figures of drift_latest.json; the gauge follows', async () => {
    modelFeatureDriftScore.set(0.9);
    const none = await app.inject({ method: 'GET', url: '/monitoring/drift' });
    assert.equal(none.statusCode, 200);
    assert.equal(none.json().drift_score, null);
    assert.equal(none.json().no_score_reason, 'no_run', 'says why there is no score: no drift run yet');
    assert.notEqual(await gaugeValue(), 0.9);
    // The summary is null, so the gauge is NaN: never a made-up 0.
    assert.ok(Number.isNaN(await gaugeValue()), 'drift gauge NaN while drift_score is null');

    const latest = {
      drift_score: 0.25,
      n_features: 8,
      n_drifted: 2,
      n_skipped: 0,
      drifted_features: ['mkt_home', 'mkt_away'],
      feature_scores: { mkt_home: 0.9, elo_home: null },
      window: {
        start: '2026-01-01T00:00:00.000Z',
        end: '2026-01-31T00:00:00.000Z',
        days: 30,
        includes_future: true,
      },
      generated_at: '2026-01-31T00:00:00.000Z',
      report_filename: DRIFT,
      data_quality_filename: QUALITY,
      features: [{ feature: 'mkt_home' }],
    };
    await publishArtifacts({ db, store }, { driftLatest: JSON.stringify(latest) });
    const res = await app.inject({ method: 'GET', url: '/monitoring/drift' });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body.drift_score, 0.25);
    assert.equal(body.n_drifted, 2);
    assert.deepEqual(body.feature_scores, { mkt_home: 0.9, elo_home: null });
    assert.equal(body.report_filename, DRIFT);
    assert.equal(await gaugeValue(), 0.25);
    assert.equal(body.no_score_reason, undefined);

    // A run over an empty window: a report without a score, and the reason names the window.
    const empty = {
      ...latest,
      drift_score: null,
      n_features: 0,
      n_skipped: 8,
      current: { n_rows: 0, n_finished: 0, n_future: 0 },
      thresholds: { minSamples: 30 },
    };
    await publishArtifacts({ db, store }, { driftLatest: JSON.stringify(empty) });
    const e = (await app.inject({ method: 'GET', url: '/monitoring/drift' })).json();
    assert.equal(e.drift_score, null);
    assert.equal(e.no_score_reason, 'empty_window');
    assert.match(e.no_score_detail, /2026-01-01 – 2026-01-31/);
    const few = { ...empty, current: { n_rows: 12, n_finished: 5, n_future: 7 } };
    await publishArtifacts({ db, store }, { driftLatest: JSON.stringify(few) });
    const f = (await app.inject({ method: 'GET', url: '/monitoring/drift' })).json();
    assert.equal(f.no_score_reason, 'too_few_values');
    assert.match(f.no_score_detail, /12 matches, 5 finished.*at least 30/);
  });

  test('listing returns only the HTML reports, each with a signed link that serves it', async () => {
    await store.put('reports', DRIFT, '<!DOCTYPE html><title>d</title>drift');
    await store.put('reports', QUALITY, '<!DOCTYPE html><title>q</title>quality');
    await store.put('reports', 'roi_by_region.csv', 'region_name\n');
    await store.put('reports', 'notes.txt', 'x');
    await store.put('reports', 'drift_report_latest.html', 'not a timestamped report');
    await store.put('predictions', DRIFT.replace('20260101', '20270101'), 'wrong bucket');
    const res = await app.inject({ method: 'GET', url: '/monitoring/reports' });
    assert.equal(res.statusCode, 200);
    const list = res.json() as Array<{ filename: string; url: string }>;
    assert.deepEqual(list.map((e) => e.filename).sort(), [QUALITY, DRIFT].sort());
    const before = Math.floor(Date.now() / 1000);
    for (const e of list) {
      const u = new URL(e.url);
      assert.equal(u.pathname, `/files/reports/${e.filename}`);
      const expires = Number(u.searchParams.get('expires'));
      assert.ok(expires >= before + 3599 && expires <= before + 3602, 'valid for REPORT_URL_TTL (1 h)');
      const file = await app.inject({ method: 'GET', url: local(e.url) });
      assert.equal(file.statusCode, 200);
      assert.match(String(file.headers['content-type']), /text\/html/);
    }
  });

  test('a listed report redirects (307) to its signed link', async () => {
    const res = await app.inject({ method: 'GET', url: `/monitoring/reports/${DRIFT}` });
    assert.equal(res.statusCode, 307);
    const location = String(res.headers.location);
    assert.match(
      location,
      new RegExp(`^http://reports\\.test/files/reports/${DRIFT}\\?expires=\\d+&signature=[0-9a-f]{64}$`),
    );
    const file = await app.inject({ method: 'GET', url: local(location) });
    assert.equal(file.statusCode, 200);
    assert.match(file.body, /drift/);
  });

  test('404 for anything the listing does not return: unknown, traversal, other type, other bucket', async () => {
    const names = [
      'drift_report_20990101T000000Z.html',
      'roi_by_region.csv',
      'drift_latest.json',
      'notes.txt',
      'drift_report_latest.html',
      '..%2Fpredictions%2Fpredictions.parquet',
      '..%2F..%2F..%2Fetc%2Fpasswd',
      '%2E%2E%2Freports%2Fdrift_latest.json',
      `${DRIFT}%00.csv`,
      `${DRIFT}%2F..%2Froi_by_region.csv`,
      'drift_report_20270101T000000Z.html', // exists, but in the predictions bucket
      `..%5C${DRIFT}`,
      `drift_report_${'1'.repeat(150)}Z.html`,
    ];
    for (const n of names) {
      const res = await app.inject({ method: 'GET', url: `/monitoring/reports/${n}` });
      assert.equal(res.statusCode, 404, n);
      assert.equal(res.headers.location, undefined, n);
    }
    // Longer than the router's parameter limit: refused before the route (414), never redirected.
    const long = await app.inject({
      method: 'GET',
      url: `/monitoring/reports/drift_report_${'1'.repeat(300)}Z.html`,
    });
    assert.ok(long.statusCode >= 400 && long.statusCode < 500, String(long.statusCode));
    const traversal = await app.inject({ method: 'GET', url: '/monitoring/reports/../../etc/passwd' });
    assert.notEqual(traversal.statusCode, 307);
    assert.notEqual(traversal.statusCode, 200);
  });

  test('a signed link cannot be forged, extended or pointed at another object', async () => {
    const res = await app.inject({ method: 'GET', url: `/monitoring/reports/${DRIFT}` });
    const u = new URL(String(res.headers.location));
    const sig = u.searchParams.get('signature')!;
    const exp = u.searchParams.get('expires')!;
    const flipped = (sig[0] === 'a' ? 'b' : 'a') + sig.slice(1);
    const attempts = [
      `/files/reports/${DRIFT}?expires=${exp}&signature=${flipped}`,
      `/files/reports/${DRIFT}?expires=${Number(exp) + 3600}&signature=${sig}`,
      `/files/reports/${QUALITY}?expires=${exp}&signature=${sig}`,
      `/files/reports/roi_by_region.csv?expires=${exp}&signature=${sig}`,
      `/files/predictions/${DRIFT}?expires=${exp}&signature=${sig}`,
      `/files/reports/${DRIFT}`,
    ];
    for (const a of attempts) {
      const r = await app.inject({ method: 'GET', url: a });
      assert.equal(r.statusCode, 403, a);
    }
  });
});

test('signed report links expire after REPORT_URL_TTL', async () => {
  const { app, store, db, dir } = await makeApp('1');
  try {
    await store.put('reports', DRIFT, '<!DOCTYPE html><title>d</title>drift');
    const res = await app.inject({ method: 'GET', url: `/monitoring/reports/${DRIFT}` });
    assert.equal(res.statusCode, 307);
    const link = local(String(res.headers.location));
    assert.equal((await app.inject({ method: 'GET', url: link })).statusCode, 200);
    // expires = floor(now) + 1 s: at most 2 s from now the link is dead.
    await new Promise((r) => setTimeout(r, 2100));
    assert.equal((await app.inject({ method: 'GET', url: link })).statusCode, 403);
    // A fresh redirect gives a fresh link.
    const again = await app.inject({ method: 'GET', url: `/monitoring/reports/${DRIFT}` });
    assert.equal(
      (await app.inject({ method: 'GET', url: local(String(again.headers.location)) })).statusCode,
      200,
    );
  } finally {
    await app.close();
    await store.close();
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
