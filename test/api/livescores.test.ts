import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { buildApp } from '../../src/api/app.js';
import type { AppContext } from '../../src/api/context.js';
import { createPredictionCache } from '../../src/cache/index.js';
import type { Config } from '../../src/config.js';
import { type Database, MatchesRepository, type MatchUpsert } from '../../src/db/index.js';
import { createLogger } from '../../src/logger.js';
import { createTaskQueue } from '../../src/queue/index.js';
import { createRegistry } from '../../src/registry/index.js';
import { createServingViews } from '../../src/serving/index.js';
import { createObjectStore } from '../../src/storage/index.js';
import { BACKENDS } from '../db/helpers.js';

// Removed at the end of the file: an onClose hook ran before the app's last write there (its URL secret).
const dataDirs: string[] = [];
after(() => Promise.all(dataDirs.map((d) => rm(d, { recursive: true, force: true }))));

// The whole app over real adapters; the route under test reads only ctx.db and ctx.config.
async function livescoresApp(db: Database, base: Config): Promise<FastifyInstance> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'mc-livescores-'));
  dataDirs.push(dataDir);
  const config: Config = {
    ...base,
    dataDir,
    redisUrl: undefined,
    cacheUrl: undefined,
    s3Endpoint: undefined,
  };
  const log = createLogger('silent');
  const store = createObjectStore(config, log);
  const ctx: AppContext = {
    config,
    log,
    db,
    store,
    queue: await createTaskQueue(config, { log }),
    cache: await createPredictionCache(config, log),
    registry: createRegistry({ db, store }, config),
    views: createServingViews({ db, store }, config, log),
  };
  const app = await buildApp(ctx, { logRequests: false });
  app.addHook('onClose', async () => {
    await Promise.allSettled([ctx.queue.close(), ctx.cache.close(), ctx.views.close(), store.close()]);
  });
  await app.ready();
  return app;
}

const THIS_YEAR = new Date().getUTCFullYear();

function m(iso: string, i: number): MatchUpsert {
  return {
    regionName: i % 2 ? 'Spain' : 'England',
    tournamentName: i % 2 ? 'LaLiga' : 'Premier League',
    season: '2022-2023',
    startTimeUtc: new Date(iso),
    homeTeamName: `Home ${i}`,
    awayTeamName: `Away ${i}`,
    status: i % 3 === 0 ? 'scheduled' : 'finished',
    homeScore: i % 3 === 0 ? null : i % 4,
    awayScore: i % 3 === 0 ? null : 1,
  };
}

for (const backend of BACKENDS) {
  describe(`GET /livescores/ on ${backend.name}`, { skip: backend.skip }, () => {
    let app: FastifyInstance;
    let opened: Awaited<ReturnType<typeof backend.open>>;
    const get = async (qs: string) => {
      const res = await app.inject({ method: 'GET', url: `/livescores/${qs}` });
      return { status: res.statusCode, body: res.json() };
    };

    before(async () => {
      opened = await backend.open();
      const rows: MatchUpsert[] = [];
      // 2023: one match on day 1..28 of every month at 15:00 → 12 × 2 = 24 matches.
      for (let month = 1; month <= 12; month++) {
        for (const day of [1, 28]) {
          rows.push(
            m(
              `2023-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}T15:00:00Z`,
              rows.length,
            ),
          );
        }
      }
      rows.push(m('2022-12-31T23:59:00Z', rows.length), m('2024-01-01T00:00:00Z', rows.length + 1));
      // The current year holds 105 matches, more than the default limit.
      for (let i = 0; i < 105; i++) {
        rows.push(m(new Date(Date.UTC(THIS_YEAR, 0, 1, 12) + i * 3_600_000).toISOString(), 1000 + i));
      }
      await new MatchesRepository(opened.db).upsertMatches(rows);
      app = await livescoresApp(opened.db, opened.config);
    });
    after(async () => {
      await app?.close();
      await opened?.cleanup();
    });

    test('defaults: current UTC year, limit 100, offset 0, newest first, camelCase rows', async () => {
      const { status, body } = await get('');
      assert.equal(status, 200);
      assert.equal(body.length, 100);
      assert.ok(body.every((r: { startTimeUtc: string }) => r.startTimeUtc.startsWith(String(THIS_YEAR))));
      const times = body.map((r: { startTimeUtc: string }) => r.startTimeUtc);
      assert.deepEqual(times, [...times].sort().reverse());
      assert.deepEqual(Object.keys(body[0]).sort(), [
        'awayScore',
        'awayTeamName',
        'homeScore',
        'homeTeamName',
        'id',
        'regionId',
        'regionName',
        'season',
        'startTimeUtc',
        'status',
        'tournamentName',
      ]);
      // Without the trailing slash too.
      const bare = await app.inject({ method: 'GET', url: '/livescores?limit=1' });
      assert.equal(bare.statusCode, 200);
    });

    test('year, month, limit and offset', async () => {
      const year = await get('?year=2023&limit=10000');
      assert.equal(year.status, 200);
      assert.equal(year.body.length, 24);
      assert.equal(year.body[0].startTimeUtc, '2023-12-28T15:00:00.000Z');
      assert.equal(year.body[23].startTimeUtc, '2023-01-01T15:00:00.000Z');

      const feb = await get('?year=2023&month=2');
      assert.deepEqual(
        feb.body.map((r: { startTimeUtc: string }) => r.startTimeUtc),
        ['2023-02-28T15:00:00.000Z', '2023-02-01T15:00:00.000Z'],
      );
      const row = feb.body[0];
      assert.equal(typeof row.id, 'number');
      assert.equal(typeof row.regionId, 'number');
      assert.ok(['scheduled', 'finished'].includes(row.status));
      assert.equal(row.homeScore === null, row.status === 'scheduled');

      const page = await get('?year=2023&limit=3&offset=2');
      assert.deepEqual(
        page.body.map((r: { id: number }) => r.id),
        year.body.slice(2, 5).map((r: { id: number }) => r.id),
      );
      assert.deepEqual((await get('?year=2023&offset=24')).body, []);
      assert.deepEqual((await get('?year=1999')).body, []);
      assert.equal((await get('?year=2024&month=1')).body.length, 1);
    });

    test('422 for wrong types, out-of-range values and unknown parameters, naming the field', async () => {
      const cases: [string, string][] = [
        ['?year=abc', 'year'],
        ['?year=2023.5', 'year'],
        ['?year=1899', 'year'],
        ['?year=2101', 'year'],
        ['?month=0', 'month'],
        ['?month=13', 'month'],
        ['?month=x', 'month'],
        ['?limit=0', 'limit'],
        ['?limit=10001', 'limit'],
        ['?offset=-1', 'offset'],
        ['?offset=1e3x', 'offset'],
        ['?page=2', 'page'],
      ];
      for (const [qs, field] of cases) {
        const { status, body } = await get(qs);
        assert.equal(status, 422, qs);
        assert.ok(Array.isArray(body.detail), qs);
        assert.ok(
          body.detail.some((d: { loc: string[] }) => d.loc[0] === 'query' && d.loc.includes(field)),
          `${qs}: ${JSON.stringify(body.detail)}`,
        );
      }
      // Every invalid field is listed.
      const many = await get('?year=1&month=99&foo=1');
      assert.equal(many.status, 422);
      assert.ok(many.body.detail.length >= 3);
    });

    // Last: it closes the database under the app.
    test('a closed database answers 503 MC_ERR_DATABASE_UNAVAILABLE', async () => {
      await opened.db.close();
      const res = await app.inject({ method: 'GET', url: '/livescores/?year=2023' });
      assert.equal(res.statusCode, 503);
      assert.equal(res.json().code, 'MC_ERR_DATABASE_UNAVAILABLE');
    });
  });
}

describe('GET /livescores/ when the database does not answer', () => {
  const pgBackend = BACKENDS[1];
  test('a database that does not answer is cut at dbTimeoutMs with 503', {
    skip: pgBackend.skip,
  }, async () => {
    const opened = await pgBackend.open();
    const config = { ...opened.config, dbTimeoutMs: 300 };
    const app = await livescoresApp(opened.db, config);
    // Another session holds an exclusive lock on matches: the route's SELECT blocks until cut.
    const locker = new pg.Client({ connectionString: config.databaseUrl });
    await locker.connect();
    try {
      const [{ schema }] = await opened.db.query<{ schema: string }>('SELECT current_schema() AS schema');
      await locker.query('BEGIN');
      await locker.query(`LOCK TABLE "${schema}".matches IN ACCESS EXCLUSIVE MODE`);
      const started = Date.now();
      const res = await app.inject({ method: 'GET', url: '/livescores/?year=2023' });
      const ms = Date.now() - started;
      assert.equal(res.statusCode, 503);
      assert.equal(res.json().code, 'MC_ERR_DATABASE_UNAVAILABLE');
      assert.ok(ms < 2000, `answered after ${ms} ms`);
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
      await locker.end();
      await app.close();
      await opened.cleanup();
    }
  });
});
