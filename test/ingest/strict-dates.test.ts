// Every date and time ingest accepts is read strictly (no rollover, no hour 24, no year 0), and odds
// are never observed after "now": each bad row is skipped with its line and a stable code.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { MatchesRepository } from '../../src/db/index.js';
import { ingestPath, readOddsObservations } from '../../src/ingest/index.js';
import { caseFiles, type IngestEnv, ingestEnv } from './helpers.js';

const CSV_HEADER = 'Date,country,league,Season,HomeTeam,AwayTeam,FTHG,FTAG,home_open,draw_open,away_open';
const FD_HEADER = 'Div,Date,Time,HomeTeam,AwayTeam,FTHG,FTAG,AvgH,AvgD,AvgA';
const ODDS_HEADER = 'match_id,observed_at,odd_home,odd_draw,odd_away,source';

describe('strict dates and no observation from the future', () => {
  let env: IngestEnv;
  let dir: string;
  const file = caseFiles(() => dir);
  const codes = (skipped: ReadonlyArray<{ line: number; code: string }>) =>
    skipped.map((s) => [s.line, s.code]);
  const matches = () => new MatchesRepository(env.db).allMatches();

  before(async () => {
    env = await ingestEnv();
    dir = path.join(env.config.dataDir, 'files');
  });
  after(async () => env?.cleanup());

  test('football CSV Date: rolled-over days, month 13, 24:00, 23:60 and years out of range are refused', async () => {
    const dates = [
      '2022-02-30 15:00:00',
      '2023-13-01 15:00:00',
      '2023-01-01 24:00:00',
      '2023-01-01 23:60:00',
      '0000-01-01 15:00:00',
      '2150-01-01 15:00:00',
      '2022-02-28 15:00:00', // valid: loads
    ];
    const rows = dates.map((d, i) => `${d},norway,eliteserien,2021-2022,Home ${i},Away ${i},1,0,2.1,3.4,3.6`);
    const report = await ingestPath(file(`${CSV_HEADER}\n${rows.join('\n')}\n`), env, {
      now: new Date('2024-01-01T00:00:00Z'),
    });
    assert.equal(report.inserted, 1);
    assert.deepEqual(
      codes(report.skipped),
      [2, 3, 4, 5, 6, 7].map((l) => [l, 'MC_ERR_INVALID_DATE']),
    );
    assert.match(report.skipped[0].reason, /Date is not a valid date .*"2022-02-30 15:00:00"/);
    const loaded = (await matches()).filter((m) => m.regionName === 'Norway');
    assert.deepEqual(
      loaded.map((m) => m.startTimeUtc.toISOString()),
      ['2022-02-28T15:00:00.000Z'],
      'nothing rolled into March',
    );
  });

  test('football-data.co.uk Date and Time: 30/02, month 13, 24:00 and 23:60 are refused', async () => {
    const rows = [
      'E0,30/02/2022,15:00,A1,B1,1,0,2.1,3.4,3.6',
      'E0,01/13/2022,15:00,A2,B2,1,0,2.1,3.4,3.6',
      'E0,01/02/2022,24:00,A3,B3,1,0,2.1,3.4,3.6',
      'E0,01/02/2022,23:60,A4,B4,1,0,2.1,3.4,3.6',
      'E0,29/02/23,15:00,A5,B5,1,0,2.1,3.4,3.6',
      'E0,01/02/2022,23:59,A6,B6,1,0,2.1,3.4,3.6', // valid
      'E0,01/02/2022,15:00,A7,B7,1', // too few fields: a malformed row, not a date
    ];
    const report = await ingestPath(file(`${FD_HEADER}\n${rows.join('\n')}\n`), env, {
      now: new Date('2024-01-01T00:00:00Z'),
    });
    assert.equal(report.inserted, 1);
    assert.deepEqual(codes(report.skipped), [
      [2, 'MC_ERR_INVALID_DATE'],
      [3, 'MC_ERR_INVALID_DATE'],
      [4, 'MC_ERR_INVALID_DATE'],
      [5, 'MC_ERR_INVALID_DATE'],
      [6, 'MC_ERR_INVALID_DATE'],
      [8, 'MC_ERR_INVALID_ROW'],
    ]);
    assert.match(report.skipped[2].reason, /Time is not a valid date \(HH:MM, 00:00–23:59\): "24:00"/);
  });

  test('odds-only observed_at and kickoff: strict, with or without an offset; after now refused', async () => {
    const now = new Date('2030-06-01T12:00:00Z');
    await ingestPath(
      file(`${CSV_HEADER}\n2030-06-05 18:00:00,peru,liga-1,2030-2031,Lima,Cusco,,,,,\n`),
      env,
      { now },
    );
    const m = (await matches()).find((x) => x.homeTeamName === 'Lima');
    assert.ok(m);
    const rows = [
      `${m.id},2030-02-30T10:00:00+01:00,2.1,3.4,3.6,feed`, // rolled over before: 2 March
      `${m.id},2030-05-31T24:00:00Z,2.1,3.4,3.6,feed`,
      `${m.id},2030-05-31T23:60:00Z,2.1,3.4,3.6,feed`,
      `${m.id},0000-05-31T10:00:00Z,2.1,3.4,3.6,feed`,
      `${m.id},2030-05-31T10:00:00+25:00,2.1,3.4,3.6,feed`,
      `${m.id},2030-06-01T12:00:01Z,2.1,3.4,3.6,feed`, // one second after now
      `${m.id},2030-06-01T14:30:00+02:00,2.2,3.4,3.5,feed`, // 12:30 UTC: after now
      `${m.id},2030-06-01T13:30:00+02:00,2.3,3.4,3.4,feed`, // 11:30 UTC: loads
      `${m.id},2030-06-01T12:00:00Z,2.4,3.4,3.3,feed`, // exactly now: loads
    ];
    const report = await ingestPath(file(`${ODDS_HEADER}\n${rows.join('\n')}\n`), env, { now });
    assert.deepEqual(codes(report.skipped), [
      [2, 'MC_ERR_INVALID_DATE'],
      [3, 'MC_ERR_INVALID_DATE'],
      [4, 'MC_ERR_INVALID_DATE'],
      [5, 'MC_ERR_INVALID_DATE'],
      [6, 'MC_ERR_INVALID_DATE'],
      [7, 'MC_ERR_OBSERVED_IN_FUTURE'],
      [8, 'MC_ERR_OBSERVED_IN_FUTURE'],
    ]);
    assert.match(
      report.skipped[5].reason,
      /observed_at 2030-06-01T12:00:01\.000Z is after now \(2030-06-01T12:00:00\.000Z\)/,
    );
    const obs = (await readOddsObservations(env)).filter((o) => o.match_id === m.id && o.source === 'feed');
    assert.deepEqual(
      obs.map((o) => [o.observed_at.toISOString(), o.prices[0]]),
      [
        ['2030-06-01T11:30:00.000Z', 2.3],
        ['2030-06-01T12:00:00.000Z', 2.4],
      ],
    );

    const byKey = [
      'region,tournament,kickoff,home_team,away_team,observed_at,odd_home,odd_draw,odd_away',
      'peru,liga-1,2030-06-31 18:00:00,Lima,Cusco,2030-06-01T10:00:00Z,2.1,3.4,3.6',
    ];
    const keyed = await ingestPath(file(byKey.join('\n')), env, { now });
    assert.deepEqual(codes(keyed.skipped), [[2, 'MC_ERR_INVALID_DATE']]);
    assert.match(keyed.skipped[0].reason, /^kickoff is not a valid date/);
  });

  test('without --now, "now" is the wall clock: an observation dated in the future is refused', async () => {
    const m = (await matches()).find((x) => x.homeTeamName === 'Lima');
    assert.ok(m);
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const report = await ingestPath(file(`${ODDS_HEADER}\n${m.id},${later},2.1,3.4,3.6,clock\n`), env);
    assert.deepEqual(codes(report.skipped), [[2, 'MC_ERR_OBSERVED_IN_FUTURE']]);
    assert.equal(report.observationsRead, 0);
  });
});
