// A source's faults never cost data: each fault below, served by a local HTTP server publishing a real
// season (a slice of the shared England data) week by week, leaves the database and the odds files as
// they were, records a coded error on the source, and the next good poll goes on from there.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { KEYS, ODDS_OBSERVATIONS } from '../../src/domain/index.js';
import { type PollOutcome, pollSource, SourcesRepository } from '../../src/sources/index.js';
import { type IngestEnv, ingestEnv } from '../ingest/helpers.js';
import { footballDataResults, loadSeason, playedBy, type SeasonRow, sourceServer } from './season.js';

const FETCH = { timeoutMs: 400, attempts: 2, backoffMs: 10 };
const DAY = 86_400_000;

async function snapshot(env: IngestEnv): Promise<string> {
  const rows = await env.db.query(
    `SELECT id, season, status, home_score, away_score, home_team_name, away_team_name, start_time_utc, updated_at
     FROM matches ORDER BY id`,
  );
  const obs = await env.store.head(ODDS_OBSERVATIONS.bucket, ODDS_OBSERVATIONS.key);
  const odds = await env.store.head(KEYS.odds.bucket, KEYS.odds.key);
  return JSON.stringify({ rows, obs: obs?.etag ?? null, odds: odds?.etag ?? null });
}

describe('source faults on a football-data.co.uk season file', () => {
  let env: IngestEnv;
  let server: Awaited<ReturnType<typeof sourceServer>>;
  let season: SeasonRow[];
  const start = new Date('2021-08-13T00:00:00Z');
  const week = (n: number) => new Date(start.getTime() + n * 7 * DAY);
  const poll = (n: number, accept = false): Promise<PollOutcome> =>
    pollSource({ db: env.db, store: env.store }, 'e0', { now: week(n), fetch: FETCH, accept });

  before(async () => {
    env = await ingestEnv();
    server = await sourceServer();
    season = loadSeason('2021-2022');
    await new SourcesRepository(env.db).add({
      name: 'e0',
      url: server.url('/mmz4281/2122/E0.csv'),
      format: 'results-csv',
      everyMs: 3_600_000,
      options: {},
    });
  });
  after(async () => {
    await server?.close();
    await env?.cleanup();
  });

  test('week by week: each poll adds the new week; an unchanged file is a 304 and reads nothing', async () => {
    const read: number[] = [];
    for (const n of [1, 2]) {
      server.publish('/mmz4281/2122/E0.csv', { body: footballDataResults(playedBy(season, week(n))) });
      const o = await poll(n);
      read.push(o.report?.rowsRead ?? -1);
      assert.equal(o.status, 'ok', o.message ?? '');
      const [c] = await env.db.query<{ n: number }>(
        "SELECT count(*) AS n FROM matches WHERE status = 'finished'",
      );
      assert.equal(c.n, playedBy(season, week(n)).length);
    }
    // Week 2 read only the rows after week 1's (the body extended the last good one).
    assert.deepEqual(read, [
      playedBy(season, week(1)).length,
      playedBy(season, week(2)).length - playedBy(season, week(1)).length,
    ]);
    const again = await poll(2);
    assert.equal(again.status, 'not-modified');
    const last = server.requests.at(-1);
    assert.equal(last?.status, 304);
    assert.ok(last?.ifNoneMatch, 'If-None-Match sent');
    assert.ok(last?.ifModifiedSince, 'If-Modified-Since sent');
  });

  const good = () => footballDataResults(playedBy(season, week(3)));
  const faults: { name: string; code: string; publish: () => Parameters<typeof server.publish>[1] }[] = [
    { name: '404', code: 'MC_ERR_SOURCE_UNREACHABLE', publish: () => ({ status: 404 }) },
    { name: '500', code: 'MC_ERR_SOURCE_UNREACHABLE', publish: () => ({ status: 500 }) },
    { name: 'timeout', code: 'MC_ERR_SOURCE_TIMEOUT', publish: () => ({ hang: true }) },
    {
      name: 'truncated (connection dropped before Content-Length)',
      code: 'MC_ERR_SOURCE_TRUNCATED',
      publish: () => ({ cut: good(), sent: Math.floor(good().length * 0.9) }),
    },
    {
      name: 'truncated (last row cut, no line end)',
      code: 'MC_ERR_SOURCE_TRUNCATED',
      publish: () => ({ body: good().slice(0, good().lastIndexOf(',', good().length - 40)) }),
    },
    { name: 'empty body', code: 'MC_ERR_SOURCE_EMPTY', publish: () => ({ body: '' }) },
    {
      name: 'changed header',
      code: 'MC_ERR_SOURCE_LAYOUT_CHANGED',
      publish: () => ({
        body: good()
          .replace('AvgCA', 'AvgCA,Referee')
          .replace(/\r\n(?=.)/g, ',X\r\n'),
      }),
    },
    {
      name: 'shrunk file',
      code: 'MC_ERR_SOURCE_SHRUNK',
      publish: () => ({ body: footballDataResults(playedBy(season, week(1))) }),
    },
    {
      name: 'another encoding',
      code: 'MC_ERR_SOURCE_ENCODING',
      publish: () => ({ body: Buffer.from(good().replace('Brentford', 'Brentförd'), 'latin1') }),
    },
  ];
  for (const f of faults) {
    test(`${f.name}: nothing stored changes, ${f.code} is recorded`, async () => {
      const before = await snapshot(env);
      const errorsBefore = (await new SourcesRepository(env.db).get('e0'))?.errorsTotal ?? 0;
      server.publish('/mmz4281/2122/E0.csv', f.publish());
      const o = await poll(3);
      assert.equal(o.status, 'failed');
      assert.equal(o.code, f.code, o.message ?? '');
      assert.equal(await snapshot(env), before, 'the database and the odds files are as they were');
      const s = await new SourcesRepository(env.db).get('e0');
      assert.equal(s?.lastErrorCode, f.code);
      assert.equal(s?.errorsTotal, errorsBefore + 1);
      assert.equal(s?.lastSuccessAt?.getTime(), week(2).getTime(), 'the last success stays');
    });
  }

  test('duplicate rows: the copies are skipped and coded, the rest applied', async () => {
    const rows = playedBy(season, week(3));
    const text = good();
    const lines = text.split('\r\n');
    const dup = `${lines.slice(0, -1).join('\r\n')}\r\n${lines.at(-2)}\r\n`;
    server.publish('/mmz4281/2122/E0.csv', { body: dup });
    const o = await poll(3);
    assert.equal(o.status, 'ok');
    assert.equal(o.code, 'MC_ERR_SOURCE_ROWS_SKIPPED');
    assert.match(o.message ?? '', /duplicate of line/);
    const [c] = await env.db.query<{ n: number }>('SELECT count(*) AS n FROM matches');
    assert.equal(c.n, rows.length);
  });

  test('the next good poll goes on from the last good one; a contradicting result is refused', async () => {
    server.publish('/mmz4281/2122/E0.csv', { body: footballDataResults(playedBy(season, week(5))) });
    const o = await poll(5);
    assert.equal(o.status, 'ok', o.message ?? '');
    const [c] = await env.db.query<{ n: number }>(
      "SELECT count(*) AS n FROM matches WHERE status = 'finished'",
    );
    assert.equal(c.n, playedBy(season, week(5)).length);

    const rows = playedBy(season, week(5)).map((r, i) =>
      i === 0 ? { ...r, fthg: String(Number(r.fthg) + 3) } : r,
    );
    server.publish('/mmz4281/2122/E0.csv', { body: footballDataResults(rows) });
    const before = await snapshot(env);
    const bad = await poll(5);
    assert.equal(bad.status, 'ok');
    assert.equal(bad.code, 'MC_ERR_SOURCE_ROWS_SKIPPED');
    assert.equal(bad.report?.conflicts.length, 1);
    assert.equal(await snapshot(env), before, 'the stored result stands');
  });
});
