import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { MatchesRepository } from '../../src/db/index.js';
import { KEYS } from '../../src/domain/index.js';
import { ingestPath, readOddsFile } from '../../src/ingest/index.js';
import { FIXTURES, type IngestEnv, ingestEnv } from './helpers.js';

const BROKEN = path.join(FIXTURES, 'football-broken.csv');
const E0 = path.join(FIXTURES, 'football-data-E0.csv');

describe('ingestPath', () => {
  let env: IngestEnv;
  before(async () => {
    env = await ingestEnv();
  });
  after(async () => env?.cleanup());

  test('football CSV with broken rows: each is reported with file, line and reason; the rest is loaded', async () => {
    const report = await ingestPath(BROKEN, env);
    assert.equal(report.files, 1);
    assert.equal(report.rowsRead, 15);
    assert.deepEqual(
      { inserted: report.inserted, updated: report.updated, unchanged: report.unchanged },
      { inserted: 8, updated: 0, unchanged: 0 },
    );
    assert.deepEqual(
      report.skipped.map((s) => [s.file, s.line]),
      [5, 6, 7, 8, 10, 11, 17].map((line) => [BROKEN, line]),
    );
    assert.deepEqual(
      report.skipped.map((s) => s.code),
      [1, 2, 3, 4, 5, 6, 7].map((i) => (i === 4 ? 'MC_ERR_INVALID_DATE' : 'MC_ERR_INVALID_ROW')),
    );
    const reasons = report.skipped.map((s) => s.reason);
    assert.match(reasons[0], /unparseable CSV/);
    assert.match(reasons[1], /FTHG/);
    assert.match(reasons[2], /expected 16 fields, got 13/);
    assert.match(reasons[3], /Date/);
    assert.match(reasons[4], /duplicate of line 9/);
    assert.match(reasons[5], /both "Norwich"/);
    assert.match(reasons[6], /only one of FTHG\/FTAG/);
    // A price that is not a number costs that market's prices, never the row's result.
    assert.deepEqual(
      report.oddsRejected.map((r) => [r.file, r.line, r.market, r.kind]),
      [[BROKEN, 14, '1x2', 'closing']],
    );
    assert.match(report.oddsRejected[0].reason, /draw_close is not a decimal odd: "abc"/);

    const matches = await new MatchesRepository(env.db).allMatches();
    assert.equal(matches.length, 8);
    const first = matches[0];
    assert.deepEqual(
      { ...first, id: 0, regionId: 0 },
      {
        id: 0,
        regionId: 0,
        regionName: 'England',
        tournamentName: 'Premier League',
        season: '2021-2022',
        startTimeUtc: new Date('2021-08-13T19:00:00Z'),
        homeTeamName: 'Brentford',
        awayTeamName: 'Arsenal',
        status: 'finished',
        homeScore: 2,
        awayScore: 0,
      },
    );
    const fixture = matches.find((m) => m.startTimeUtc.getUTCFullYear() === 2030);
    assert.equal(fixture?.status, 'scheduled');
    assert.equal(fixture?.homeScore, null);

    const odds = new Map((await readOddsFile(env.store)).map((o) => [o.match_id, o]));
    assert.equal(odds.size, 8);
    assert.equal(report.oddsRows, 8);
    const liverpool = odds.get(matches.find((m) => m.homeTeamName === 'Liverpool')?.id ?? -1);
    assert.deepEqual(
      liverpool && [liverpool.open_home, liverpool.close_home, liverpool.odd_home],
      [1.22, null, 1.22],
      'the rejected closing prices are not kept; the opening ones are',
    );
    const o = odds.get(first.id);
    assert.deepEqual(o && [o.odd_home, o.odd_draw, o.odd_away], [4.2, 3.5, 1.95], 'closing odds when known');
    assert.deepEqual(o && [o.open_home, o.open_draw, o.open_away], [4.1, 3.4, 1.97]);
    assert.equal(o?.source, 'football-csv');
    const f = fixture && odds.get(fixture.id);
    assert.deepEqual(f && [f.odd_home, f.odd_draw, f.odd_away], [2.1, 3.5, 3.4], 'opening when no closing');
    assert.deepEqual(f && [f.close_home, f.close_draw, f.close_away], [null, null, null]);
  });

  test('a second ingest of the same file changes nothing: same ids, odds file untouched', async () => {
    const before = await new MatchesRepository(env.db).allMatches();
    const etag = (await env.store.head(KEYS.odds.bucket, KEYS.odds.key))?.etag;
    const report = await ingestPath(BROKEN, env);
    assert.deepEqual(
      { inserted: report.inserted, updated: report.updated, unchanged: report.unchanged },
      { inserted: 0, updated: 0, unchanged: 8 },
    );
    assert.equal(report.skipped.length, 7);
    assert.deepEqual(await new MatchesRepository(env.db).allMatches(), before);
    assert.equal((await env.store.head(KEYS.odds.bucket, KEYS.odds.key))?.etag, etag);
  });

  test('football-data.co.uk: divisions, UK kick-off times to UTC, seasons, FTR check, odds preference; odds merged', async () => {
    const report = await ingestPath(E0, env);
    assert.equal(report.rowsRead, 9);
    assert.deepEqual(
      report.skipped.map((s) => s.line),
      [5, 10],
    );
    assert.match(report.skipped[0].reason, /FTR "A" contradicts the score 3-0/);
    assert.match(report.skipped[1].reason, /not a valid date/);
    // Brentford–Arsenal and Burnley–Brighton are the same matches as in the football CSV (same key).
    assert.deepEqual(
      { inserted: report.inserted, updated: report.updated, unchanged: report.unchanged },
      { inserted: 5, updated: 0, unchanged: 2 },
    );

    const all = await new MatchesRepository(env.db).allMatches();
    assert.equal(all.length, 13);
    const find = (home: string) => all.find((m) => m.homeTeamName === home);
    assert.equal(find('Man United')?.startTimeUtc.toISOString(), '2021-08-14T11:30:00.000Z', '12:30 BST');
    assert.equal(find('Everton')?.startTimeUtc.toISOString(), '2021-08-14T14:00:00.000Z', 'dd/m/yy');
    assert.equal(find('Leicester')?.startTimeUtc.toISOString(), '2022-01-15T15:00:00.000Z', '15:00 GMT');
    assert.equal(find('Leicester')?.season, '2021-2022');
    const future = all.find((m) => m.homeTeamName === 'Arsenal' && m.awayTeamName === 'Everton');
    assert.deepEqual(future && [future.status, future.homeScore, future.season], [
      'scheduled',
      null,
      '2029-2030',
    ]);
    assert.equal(future?.startTimeUtc.toISOString(), '2030-05-21T00:00:00.000Z', 'no Time: midnight UTC');
    const unknown = find('Foo');
    assert.deepEqual(unknown && [unknown.regionName, unknown.tournamentName], ['ZZ9', 'ZZ9']);
    // England from both sources is one region.
    assert.equal(new Set(all.filter((m) => m.regionName === 'England').map((m) => m.regionId)).size, 1);

    const odds = new Map((await readOddsFile(env.store)).map((o) => [o.match_id, o]));
    assert.equal(odds.size, 12, 'the first source kept, the second added');
    assert.equal(report.oddsRows, 12);
    const brentford = odds.get(find('Brentford')?.id ?? -1);
    assert.equal(brentford?.source, 'football-data.co.uk:Avg');
    assert.deepEqual(
      brentford && [brentford.open_home, brentford.close_home, brentford.odd_home],
      [4.1, 4.3, 4.3],
    );
    const manU = odds.get(find('Man United')?.id ?? -1);
    assert.equal(manU?.source, 'football-data.co.uk:open=Avg,close=PSC');
    assert.deepEqual(manU && [manU.odd_home, manU.odd_draw, manU.odd_away], [1.58, 4.4, 5.8]);
    const burnley = odds.get(find('Burnley')?.id ?? -1);
    // The summary is a function of every observation of the match: the second source's opening price
    // does not erase the first source's closing one (the newest 1X2 observation, hence the source).
    assert.equal(burnley?.source, 'football-csv');
    assert.deepEqual(burnley && [burnley.odd_home, burnley.close_home], [2.9, 2.9]);
    assert.equal(odds.get(future?.id ?? -1)?.source, 'football-data.co.uk:B365');
    assert.equal(odds.has(unknown?.id ?? -1), false, 'no odds, no row');
    // Matches only the first source priced keep their odds.
    assert.equal(odds.get(find('Tottenham')?.id ?? -1)?.source, 'football-csv');
  });

  test('a folder: *.csv files in name order; an unrecognised header is reported and the others load', async () => {
    const dir = path.join(env.config.dataDir, 'folder');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'a-unknown.csv'), 'x,y,z\n1,2,3\n');
    writeFileSync(path.join(dir, 'notes.txt'), 'not a csv');
    writeFileSync(
      path.join(dir, 'b-belgium.csv'),
      'Date,country,league,Season,HomeTeam,AwayTeam,FTHG,FTAG\n2020-02-01 19:00:00,belgium,jupiler-pro-league,2019-2020,Genk,Gent,1,1\n',
    );
    const report = await ingestPath(dir, env);
    assert.equal(report.files, 2);
    assert.deepEqual(report.skipped, [
      {
        file: path.join(dir, 'a-unknown.csv'),
        line: 1,
        code: 'MC_ERR_INVALID_ROW',
        reason:
          'unrecognised header: expected the football CSV, the football-data.co.uk or the odds-only layout',
      },
    ]);
    assert.equal(report.inserted, 1);
    const genk = (await new MatchesRepository(env.db).allMatches()).find((m) => m.homeTeamName === 'Genk');
    assert.deepEqual(genk && [genk.regionName, genk.tournamentName], ['Belgium', 'Jupiler Pro League']);
    assert.equal(report.oddsRows, 12, 'no odds in this file: the odds file is kept as it was');
  });

  test('a missing path is MC_ERR_NOT_FOUND', async () => {
    await assert.rejects(ingestPath(path.join(env.config.dataDir, 'nope'), env), {
      code: 'MC_ERR_NOT_FOUND',
    });
  });

  test('a file is applied in one transaction: a failure on its last row leaves none of it', async () => {
    // A real trigger makes the database refuse one row, past the first upsert batch (2000 rows).
    await env.db.query(`CREATE FUNCTION refuse_boom() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.home_team_name = 'Boom' THEN RAISE EXCEPTION 'refused'; END IF; RETURN NEW; END $$`);
    await env.db.query(
      'CREATE TRIGGER refuse_boom BEFORE INSERT ON matches FOR EACH ROW EXECUTE FUNCTION refuse_boom()',
    );
    const lines = ['Date,country,league,Season,HomeTeam,AwayTeam,FTHG,FTAG'];
    const t0 = Date.UTC(2015, 0, 1);
    for (let i = 0; i < 2500; i++) {
      const iso = new Date(t0 + i * 3_600_000).toISOString().replace('T', ' ').slice(0, 19);
      lines.push(`${iso},italy,serie-a,2014-2015,${i === 2499 ? 'Boom' : `Team ${i}`},Other ${i},1,0`);
    }
    const file = path.join(env.config.dataDir, 'atomic.csv');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const count = await new MatchesRepository(env.db).count();
    await assert.rejects(ingestPath(file, env), /refused/);
    assert.equal(await new MatchesRepository(env.db).count(), count);
    await env.db.query('DROP TRIGGER refuse_boom ON matches');
  });
});
