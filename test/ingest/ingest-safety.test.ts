import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { MatchesRepository } from '../../src/db/index.js';
import { KEYS, ODDS_OBSERVATIONS, OPENING_LEAD_MS } from '../../src/domain/index.js';
import { ingestPath, readOddsFile, readOddsObservations } from '../../src/ingest/index.js';
import { type IngestEnv, ingestEnv } from './helpers.js';

const HEADER =
  'Date,country,league,Season,HomeTeam,AwayTeam,FTHG,FTAG,home_close,home_open,draw_close,draw_open,away_close,away_open,over_2.5_close,over_2.5_open,under_2.5_close,under_2.5_open,bts_yes_close,bts_yes_open,bts_no_close,bts_no_open';
const ODDS = '2.1,2.2,3.4,3.3,3.6,3.5,1.9,1.95,1.95,1.9,1.8,1.85,2.0,1.95';

describe('ingest never loses or invents data', () => {
  let env: IngestEnv;
  let dir: string;
  let n = 0;
  /** Writes a file (bytes or text) in a fresh folder and returns its path. */
  const file = (body: string | Buffer, name = 'f.csv'): string => {
    const d = path.join(dir, `case-${++n}`);
    mkdirSync(d, { recursive: true });
    const p = path.join(d, name);
    writeFileSync(p, body);
    return p;
  };
  const matches = () => new MatchesRepository(env.db).allMatches();

  before(async () => {
    env = await ingestEnv();
    dir = path.join(env.config.dataDir, 'files');
  });
  after(async () => env?.cleanup());

  test('a later file never changes or erases a finished result; every conflict is listed; --force applies them', async () => {
    const first = file(
      `${HEADER}\n2020-01-04 15:00:00,spain,laliga,2019-2020,Alpha,Beta,2,1,${ODDS}\n2020-01-05 15:00:00,spain,laliga,2019-2020,Gamma,Delta,0,0,${ODDS}\n`,
    );
    await ingestPath(first, env);
    const before = await matches();
    // Line 2 changes the score, line 3 turns the finished match back into a fixture.
    const later = file(
      `${HEADER}\n2020-01-04 15:00:00,spain,laliga,2019-2020,Alpha,Beta,1,1,${ODDS}\n2020-01-05 15:00:00,spain,laliga,2019-2020,Gamma,Delta,,,${ODDS}\n`,
    );
    const report = await ingestPath(later, env);
    assert.deepEqual(await matches(), before, 'nothing changed');
    assert.equal(report.updated, 0);
    assert.deepEqual(
      report.conflicts.map((c) => [c.file, c.line, c.old, c.new, c.applied]),
      [
        [later, 2, 'finished 2-1 (2019-2020)', 'finished 1-1 (2019-2020)', false],
        [later, 3, 'finished 0-0 (2019-2020)', 'scheduled, no score (2019-2020)', false],
      ],
    );
    const alpha = before.find((m) => m.homeTeamName === 'Alpha');
    assert.equal(report.conflicts[0].match_id, alpha?.id);

    const forced = await ingestPath(later, env, { force: true });
    assert.equal(forced.updated, 2);
    assert.deepEqual(
      forced.conflicts.map((c) => [c.line, c.applied]),
      [
        [2, true],
        [3, true],
      ],
    );
    const after = await matches();
    assert.deepEqual(
      after.filter((m) => m.regionName === 'Spain').map((m) => [m.homeTeamName, m.status, m.homeScore]),
      [
        ['Alpha', 'finished', 1],
        ['Gamma', 'scheduled', null],
      ],
    );
    assert.equal(after.find((m) => m.homeTeamName === 'Alpha')?.id, alpha?.id, 'same id');
  });

  test('implausible prices are rejected per line with the reason; the row and the rest of the file load', async () => {
    const row = (i: number, odds: string) =>
      `2021-03-0${i} 19:00:00,italy,serie-a,2020-2021,Home ${i},Away ${i},1,0,${odds}`;
    const bad = [
      '1e308,2.2,3.4,3.3,3.6,3.5,,,,,,,,', // closing 1X2: 1e308 outside 1.01–1000
      'NaN,2.2,3.4,3.3,3.6,3.5,,,,,,,,', // not a number
      '2.1,Infinity,3.4,3.3,3.6,3.5,,,,,,,,', // opening home: not a number
      '2.1,2.2,3.4,3.3,-3.6,3.5,,,,,,,,', // negative
      '2.1,2.2,3.4,1.0,3.6,3.5,,,,,,,,', // 1.0: below 1.01
      '1.2,2.2,1.3,3.3,1.4,3.5,,,,,,,,', // closing book sum 2.32: overround far outside the band
      '2.1,2.2,3.4,3.3,3.6,3.5,1.05,1.95,1.06,1.9,,,,', // O/U closing overround 90 %
      '2.1,2.2,3.4,3.3,,3.5,,,,,,,,', // closing away missing: incomplete
      '2.1,2.2,3.4,3.3,3.6,3.5,1e309,1.95,1.95,1.9,,,,', // 1e309 = Infinity
    ];
    const f = file(`${HEADER}\n${bad.map((o, i) => row(i + 1, o)).join('\n')}\n`);
    const report = await ingestPath(f, env);
    assert.equal(report.inserted, 9, 'every row loads: a bad price never costs the match');
    assert.equal(report.skipped.length, 0);
    const got = report.oddsRejected.map((r) => [r.line, r.market, r.kind]);
    assert.deepEqual(got, [
      [2, '1x2', 'closing'],
      [3, '1x2', 'closing'],
      [4, '1x2', 'opening'],
      [5, '1x2', 'closing'],
      [6, '1x2', 'opening'],
      [7, '1x2', 'closing'],
      [8, 'ou25', 'closing'],
      [9, '1x2', 'closing'],
      [10, 'ou25', 'closing'],
    ]);
    const reasons = report.oddsRejected.map((r) => r.reason);
    assert.match(reasons[0], /1e\+308 is outside 1\.01–1000/);
    assert.match(reasons[1], /home_close is not a decimal odd: "NaN"/);
    assert.match(reasons[2], /draw_open is not a decimal odd: "Infinity"|home_open is not a decimal odd/);
    assert.match(reasons[3], /-3\.6 is outside/);
    assert.match(reasons[4], /price 1 is outside/);
    assert.match(reasons[5], /overround 13\d\.\d % is outside -5 %…50 %/);
    assert.match(reasons[7], /incomplete 1x2 closing prices: away_close missing/);
    assert.match(reasons[8], /Infinity is not a finite number/);
    // Nothing implausible reached the stores.
    const odds = await readOddsFile(env.store);
    for (const o of odds)
      for (const v of [o.odd_home, o.odd_draw, o.odd_away, o.close_home, o.open_home, o.close_over25])
        assert.ok(v === null || v === undefined || (v >= 1.01 && v <= 1000), String(v));
  });

  test('strict UTF-8: a Latin-1 file is refused with its line and byte; --encoding latin1 loads it', async () => {
    const text = `${HEADER}\n2019-09-01 15:00:00,germany,bundesliga,2019-2020,Bayern,K\u00f6ln,3,0,${ODDS}\n`;
    const latin = file(Buffer.from(text, 'latin1'));
    const refused = await ingestPath(latin, env);
    assert.equal(refused.inserted, 0);
    assert.equal(refused.skipped.length, 1);
    const s = refused.skipped[0];
    const at = Buffer.from(text, 'latin1').indexOf(0xf6);
    assert.deepEqual([s.line, s.byte], [2, at]);
    assert.match(s.reason, /not valid UTF-8 at byte \d+ \(0xf6\).*--encoding/);

    const ok = await ingestPath(latin, env, { encoding: 'latin1' });
    assert.equal(ok.inserted, 1);
    assert.ok((await matches()).some((m) => m.awayTeamName === 'K\u00f6ln'));
    // The same file in UTF-8 finds the same team: no mangled duplicate.
    const utf8 = file(text);
    assert.equal((await ingestPath(utf8, env)).unchanged, 1);
    // windows-1252: 0x80 is the euro sign, not a control character.
    const cp = file(
      Buffer.concat([
        Buffer.from(`${HEADER}\n2019-09-02 15:00:00,germany,bundesliga,2019-2020,Team `, 'latin1'),
        Buffer.from([0x80]),
        Buffer.from(`,Other,1,0,${ODDS}\n`),
      ]),
    );
    assert.equal((await ingestPath(cp, env, { encoding: 'windows-1252' })).inserted, 1);
    assert.ok((await matches()).some((m) => m.homeTeamName === 'Team \u20ac'));
  });

  test('a NUL byte (UTF-16) refuses the file; BOM and CRLF are read', async () => {
    const utf16 = file(Buffer.from(`\ufeff${HEADER}\n`, 'utf16le'));
    const r = await ingestPath(utf16, env);
    assert.equal(r.skipped.length, 1);
    assert.ok(r.skipped[0].byte !== undefined);
    const crlf = file(
      `\ufeff${HEADER}\r\n2018-08-11 15:00:00,france,ligue-1,2018-2019,Lyon,Nice,1,1,${ODDS}\r\n`,
    );
    const ok = await ingestPath(crlf, env);
    assert.deepEqual([ok.inserted, ok.skipped.length, ok.oddsRejected.length], [1, 0, 0]);
  });

  test('a field over its length limit rejects that row only; the rest of the file and folder load', async () => {
    const d = path.join(dir, 'folder-long');
    mkdirSync(d, { recursive: true });
    const long = 'X'.repeat(3000);
    writeFileSync(
      path.join(d, 'a.csv'),
      `${HEADER}\n2017-08-12 15:00:00,england,premier-league,2017-2018,${long},Arsenal,1,0,${ODDS}\n2017-08-12 17:30:00,england,premier-league,2017-2018,Leeds,Hull,1,0,${ODDS}\n2017-08-13 15:00:00,england,premier-league,2017-2018,${'Y'.repeat(90)},Hull,1,0,${ODDS}\n`,
    );
    writeFileSync(
      path.join(d, 'b.csv'),
      `${HEADER}\n2017-08-19 15:00:00,england,premier-league,2017-2018,Hull,Leeds,2,2,${ODDS}\n`,
    );
    const report = await ingestPath(d, env);
    assert.equal(report.inserted, 2);
    assert.deepEqual(
      report.skipped.map((s) => [path.basename(s.file), s.line]),
      [
        ['a.csv', 2],
        ['a.csv', 4],
      ],
    );
    assert.match(report.skipped[0].reason, /longer than 200 characters \(3000\)/);
    assert.match(report.skipped[1].reason, /longer than 80 characters \(90\)/);
  });

  test('team names: case and spacing variants are one team (first spelling kept); near-duplicates reported', async () => {
    const f = file(
      `${HEADER}\n2016-08-13 15:00:00,netherlands,eredivisie,2016-2017,PSV  Eindhoven,Ajax,1,0,${ODDS}\n2016-08-20 15:00:00,netherlands,eredivisie,2016-2017,AJAX,psv eindhoven,1,1,${ODDS}\n2016-08-27 15:00:00,netherlands,eredivisie,2016-2017,Heracles,Ajax,0,2,${ODDS}\n2016-09-03 15:00:00,netherlands,eredivisie,2016-2017,Herakles,Ajax,0,2,${ODDS}\n2016-09-10 15:00:00,netherlands,eredivisie,2016-2017,Go-Ahead Eagles,Ajax,0,2,${ODDS}\n2016-09-17 15:00:00,netherlands,eredivisie,2016-2017,Go Ahead Eagles,Ajax,0,3,${ODDS}\n`,
    );
    const report = await ingestPath(f, env);
    const nl = (await matches()).filter((m) => m.regionName === 'Netherlands');
    const names = new Set(nl.flatMap((m) => [m.homeTeamName, m.awayTeamName]));
    assert.deepEqual([...names].sort(), [
      'Ajax',
      'Go Ahead Eagles',
      'Go-Ahead Eagles',
      'Heracles',
      'Herakles',
      'PSV Eindhoven',
    ]);
    assert.deepEqual(
      report.nearDuplicateTeams.map((d) => d.names),
      [
        ['Go Ahead Eagles', 'Go-Ahead Eagles'],
        ['Heracles', 'Herakles'],
      ],
    );
    // A later file in other case finds the same teams.
    const again = file(
      `${HEADER}\n2016-08-13 15:00:00,netherlands,eredivisie,2016-2017,psv eindhoven,AJAX,1,0,${ODDS}\n`,
    );
    const r2 = await ingestPath(again, env);
    assert.deepEqual([r2.inserted, r2.unchanged, r2.nearDuplicateTeams.length], [0, 1, 0]);
  });

  test('invisible characters (zero-width space, soft hyphen, controls) never make a second team', async () => {
    const f = file(
      `${HEADER}\n2014-08-09 15:00:00,scotland,premiership,2014-2015,Hibernian,Kilmarnock,1,0,${ODDS}\n2014-08-16 15:00:00,scotland,premiership,2014-2015,Hibernian\u200b,Kilmar\u00adnock,2,0,${ODDS}\n2014-08-23 15:00:00,scotland,premiership,2014-2015,Kilmarnock\u0007,Hiber\u2060nian,0,0,${ODDS}\n`,
    );
    const report = await ingestPath(f, env);
    assert.deepEqual([report.inserted, report.skipped.length, report.nearDuplicateTeams.length], [3, 0, 0]);
    const sco = (await matches()).filter((m) => m.regionName === 'Scotland');
    assert.deepEqual([...new Set(sco.flatMap((m) => [m.homeTeamName, m.awayTeamName]))].sort(), [
      'Hibernian',
      'Kilmarnock',
    ]);
  });

  test('duplicated rows in one file: the first is kept, the second reported (conflicting or identical)', async () => {
    const line = `2015-08-08 15:00:00,belgium,jupiler-pro-league,2015-2016,Genk,Gent,1,1,${ODDS}`;
    const f = file(`${HEADER}\n${line}\n${line}\n${line.replace(',1,1,', ',2,1,')}\n`);
    const report = await ingestPath(f, env);
    assert.equal(report.inserted, 1);
    assert.deepEqual(
      report.skipped.map((s) => [s.line, s.reason.split(' (')[0]]),
      [
        [3, 'duplicate of line 2'],
        [4, 'conflicting duplicate of line 2'],
      ],
    );
    const genk = (await matches()).find((m) => m.homeTeamName === 'Genk');
    assert.equal(genk?.homeScore, 1);
  });

  test('a score for a match that has not kicked off is refused (row skipped, never a finished match); its fixture form loads', async () => {
    const now = new Date('2024-05-01T12:00:00Z');
    const f = file(
      `${HEADER}\n2035-06-18 13:45:00,germany,bundesliga,2034-2035,Kappa,Lambda,4,0,${ODDS}\n2024-05-02 15:00:00,germany,bundesliga,2023-2024,Kappa,Lambda,,,${ODDS}\n2024-04-30 15:00:00,germany,bundesliga,2023-2024,Lambda,Kappa,2,2,${ODDS}\n`,
    );
    const report = await ingestPath(f, env, { now });
    assert.equal(report.inserted, 2);
    assert.deepEqual(
      report.skipped.map((s) => [s.line, s.reason.split(':')[0]]),
      [[2, 'a score for a match that has not kicked off']],
    );
    assert.match(
      report.skipped[0].reason,
      /2035-06-18T13:45:00\.000Z is after now \(2024-05-01T12:00:00\.000Z\)/,
    );
    const de = (await matches()).filter((m) => m.homeTeamName === 'Kappa' || m.awayTeamName === 'Kappa');
    assert.deepEqual(
      de.map((m) => [m.startTimeUtc.toISOString().slice(0, 10), m.status, m.homeScore]),
      [
        ['2024-04-30', 'finished', 2],
        ['2024-05-02', 'scheduled', null],
      ],
    );
  });

  test('observations: opening at kick-off − 48 h, closing at kick-off, per market; the odds file keeps its columns and adds the goals markets', async () => {
    const f = file(
      `${HEADER}\n2014-08-16 15:00:00,egypt,premier-league,2014-2015,Zamalek,Ahly,0,1,${ODDS}\n`,
    );
    await ingestPath(f, env);
    const m = (await matches()).find((x) => x.homeTeamName === 'Zamalek');
    assert.ok(m);
    const obs = (await readOddsObservations(env)).filter((o) => o.match_id === m.id);
    const k = m.startTimeUtc.getTime();
    assert.deepEqual(
      obs.map((o) => [o.market, o.kind, o.observed_at.getTime() - k, o.prices]).sort(),
      [
        ['1x2', 'closing', 0, [2.1, 3.4, 3.6]],
        ['1x2', 'opening', -OPENING_LEAD_MS, [2.2, 3.3, 3.5]],
        ['btts', 'closing', 0, [1.8, 2.0]],
        ['btts', 'opening', -OPENING_LEAD_MS, [1.85, 1.95]],
        ['ou25', 'closing', 0, [1.9, 1.95]],
        ['ou25', 'opening', -OPENING_LEAD_MS, [1.95, 1.9]],
      ].sort(),
    );
    const rec = (await readOddsFile(env.store)).find((o) => o.match_id === m.id);
    assert.deepEqual(
      rec && [
        rec.odd_home,
        rec.open_home,
        rec.close_home,
        rec.odd_over25,
        rec.open_over25,
        rec.close_under25,
      ],
      [2.1, 2.2, 2.1, 1.9, 1.95, 1.95],
    );
    assert.deepEqual(rec && [rec.open_btts_yes, rec.close_btts_no, rec.odd_btts_yes], [1.85, 2.0, 1.8]);
    assert.equal(rec?.close_observed_at?.getTime(), k);
    assert.equal(rec?.open_observed_at?.getTime(), k - OPENING_LEAD_MS);
    // The merged observations: a file written once, named current in the database.
    const [set] = await env.db.query<{ key: string }>('SELECT key FROM odds_observation_sets');
    assert.ok(set && (await env.store.head(ODDS_OBSERVATIONS.bucket, set.key)));
    assert.ok(await env.store.head(KEYS.odds.bucket, KEYS.odds.key));
  });

  test('odds-only files: by match_id or natural key, with their time; unknown matches and in-play prices rejected; re-ingest is idempotent', async () => {
    const m = (await matches()).find((x) => x.homeTeamName === 'Zamalek');
    assert.ok(m);
    const k = m.startTimeUtc.getTime();
    const iso = (ms: number) => new Date(ms).toISOString();
    const f = file(
      [
        'match_id,country,league,Date,HomeTeam,AwayTeam,observed_at,kind,odd_home,odd_draw,odd_away,odd_over25,odd_under25,source',
        `${m.id},,,,,,${iso(k - 24 * 3_600_000)},intermediate,2.0,3.5,3.7,,,feed`,
        `,egypt,premier-league,2014-08-16 15:00:00,ZAMALEK,ahly,${iso(k - 3_600_000)},,1.9,3.6,3.9,1.85,2.0,feed`,
        `999999,,,,,,${iso(k - 3_600_000)},,1.9,3.6,3.9,,,feed`,
        `${m.id},,,,,,${iso(k + 600_000)},,1.5,4,6,,,feed`,
        `${m.id},,,,,,${iso(k - 7_200_000)},,1e308,3.6,3.9,,,feed`,
        `${m.id},,,,,,not-a-time,,1.9,3.6,3.9,,,feed`,
      ].join('\n'),
    );
    const report = await ingestPath(f, env);
    assert.deepEqual(
      report.skipped.map((s) => s.line),
      [7],
    );
    assert.deepEqual(
      report.oddsRejected.map((r) => [r.line, r.market]),
      [
        [6, '1x2'],
        [4, '1x2'],
        [5, '1x2'],
      ],
    );
    const obs = (await readOddsObservations(env)).filter((o) => o.match_id === m.id && o.source === 'feed');
    assert.deepEqual(
      obs.map((o) => [o.market, o.kind, k - o.observed_at.getTime()]).sort(),
      [
        ['1x2', 'intermediate', 24 * 3_600_000],
        ['1x2', 'intermediate', 3_600_000],
        ['ou25', 'intermediate', 3_600_000],
      ].sort(),
    );
    // The summary: closing is still the closing; the newest observation is the closing at kick-off.
    const rec = (await readOddsFile(env.store)).find((o) => o.match_id === m.id);
    assert.deepEqual(rec && [rec.close_home, rec.odd_home, rec.open_home], [2.1, 2.1, 2.2]);
    const etag = (await env.store.head(ODDS_OBSERVATIONS.bucket, ODDS_OBSERVATIONS.key))?.etag;
    const again = await ingestPath(f, env);
    assert.equal(again.observations, report.observations);
    assert.equal((await env.store.head(ODDS_OBSERVATIONS.bucket, ODDS_OBSERVATIONS.key))?.etag, etag);
  });
});
