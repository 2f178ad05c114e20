// Each kind of source on a real season (the shared England data, 2021-2022) published week by week:
// results close the fixtures a fixtures file created, current odds become observations at the fetch
// (or the feed's own last_update), and a team name that matches nothing waits for `teams alias`.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sourcesCommand } from '../../src/cli/sources.js';
import { teamsCommand } from '../../src/cli/teams.js';
import { readOddsObservations } from '../../src/ingest/index.js';
import { pollSource, SourcesRepository } from '../../src/sources/index.js';
import { type IngestEnv, ingestEnv } from '../ingest/helpers.js';
import {
  between,
  footballDataFixtures,
  loadSeason,
  oddsApiJson,
  oddsOnlyCsv,
  playedBy,
  type SeasonRow,
  sharedCsv,
  sourceServer,
} from './season.js';

const DAY = 86_400_000;
const FETCH = { timeoutMs: 2000, attempts: 1 };

describe('sources of every kind on one season', () => {
  let env: IngestEnv;
  let server: Awaited<ReturnType<typeof sourceServer>>;
  let season: SeasonRow[];
  let resultsFile: string;
  const t0 = new Date('2021-08-18T00:00:00Z'); // after the first weekend
  const poll = (name: string, now: Date) =>
    pollSource({ db: env.db, store: env.store }, name, { now, fetch: FETCH });
  const cli = async (fn: typeof sourcesCommand | typeof teamsCommand, ...argv: string[]) => {
    let out = '';
    let err = '';
    const code = await fn(argv, {
      config: env.config,
      deps: { db: env.db, store: env.store },
      out: (t) => {
        out += t;
      },
      err: (t) => {
        err += t;
      },
    });
    return { code, out, err };
  };
  const nextWeek = () => between(season, t0, new Date(t0.getTime() + 7 * DAY));

  before(async () => {
    env = await ingestEnv();
    server = await sourceServer();
    season = loadSeason('2021-2022');
    resultsFile = path.join(env.config.dataDir, 'england.csv');
    await writeFile(resultsFile, sharedCsv(playedBy(season, t0)));
    const add = async (...argv: string[]) => {
      const r = await cli(sourcesCommand, 'add', ...argv);
      assert.equal(r.code, 0, r.err);
    };
    await add('results', resultsFile, '--every', '6h');
    await add('fixtures', server.url('/fixtures.csv'), '--every', '1h');
    await add('odds', server.url('/odds.csv'), '--format', 'odds-csv');
    await add('feed', server.url('/v4/sports/soccer_epl/odds.json'), '--every', '15m');
  });
  after(async () => {
    await server?.close();
    await env?.cleanup();
  });

  test('sources add guesses the kind from the URL and refuses bad input', async () => {
    const list = await new SourcesRepository(env.db).list();
    assert.deepEqual(
      list.map((s) => [s.name, s.format, s.everyMs]),
      [
        ['feed', 'odds-api-json', 15 * 60_000],
        ['fixtures', 'fixtures-csv', 3_600_000],
        ['odds', 'odds-csv', 3_600_000],
        ['results', 'results-csv', 6 * 3_600_000],
      ],
    );
    await assert.rejects(cli(sourcesCommand, 'add', 'x', resultsFile, '--every', 'soon'), {
      name: 'UsageError',
    });
    await assert.rejects(cli(sourcesCommand, 'add', 'x', resultsFile, '--format', 'xml'), {
      name: 'UsageError',
    });
    const dup = await cli(sourcesCommand, 'add', 'results', resultsFile);
    assert.equal(dup.code, 1);
    assert.match(dup.err, /MC_ERR_CONFLICT/);
  });

  test('a results file from a local path starts the league', async () => {
    const o = await poll('results', t0);
    assert.equal(o.status, 'ok', o.message ?? '');
    assert.equal(o.report?.inserted, playedBy(season, t0).length);
  });

  test('a fixtures file: upcoming matches with their current odds, observed at each fetch', async () => {
    const at = new Date(t0.getTime() + 3_600_000);
    server.publish('/fixtures.csv', { body: footballDataFixtures(nextWeek()) });
    const o = await poll('fixtures', at);
    assert.equal(o.status, 'ok', o.message ?? '');
    assert.equal(o.report?.inserted, nextWeek().length);
    const [s] = await env.db.query<{ n: number }>(
      "SELECT count(*) AS n FROM matches WHERE status = 'scheduled'",
    );
    assert.equal(s.n, nextWeek().length);
    let obs = (await readOddsObservations(env)).filter((x) => x.observed_at.getTime() === at.getTime());
    assert.equal(obs.length, nextWeek().length);
    assert.ok(obs.every((x) => x.kind === 'intermediate' && x.market === '1x2'));

    // Refreshed prices two days later: new observations at the new fetch, the old ones kept.
    const later = new Date(at.getTime() + 2 * DAY);
    server.publish('/fixtures.csv', { body: footballDataFixtures(nextWeek(), 0.1) });
    const o2 = await poll('fixtures', later);
    assert.equal(o2.report?.observationsAdded, nextWeek().length);
    assert.equal(o2.report?.inserted, 0);
    obs = await readOddsObservations(env);
    assert.equal(obs.filter((x) => x.observed_at.getTime() === later.getTime()).length, nextWeek().length);
    assert.equal(obs.filter((x) => x.observed_at.getTime() === at.getTime()).length, nextWeek().length);
  });

  test('an odds-only CSV: observations at its observed_at, matches never created', async () => {
    const seen = new Date(t0.getTime() + 2.5 * DAY);
    const stranger = {
      ...nextWeek()[0],
      home: 'Arsenal',
      away: 'Chelsea',
      kickoff: new Date('2021-12-01T20:00:00Z'),
    };
    server.publish('/odds.csv', { body: oddsOnlyCsv([...nextWeek(), stranger], seen) });
    const o = await poll('odds', new Date(seen.getTime() + 60_000));
    assert.equal(o.status, 'ok', o.message ?? '');
    assert.equal(o.report?.inserted, 0);
    assert.equal(o.code, 'MC_ERR_SOURCE_ROWS_SKIPPED', 'the row of an unknown match is rejected');
    const obs = await readOddsObservations(env);
    assert.equal(obs.filter((x) => x.observed_at.getTime() === seen.getTime()).length, nextWeek().length);
  });

  test('a JSON odds feed: kick-offs matched within a tolerance; an unknown name waits for an alias', async () => {
    const update = new Date(t0.getTime() + 3 * DAY);
    const body = oddsApiJson(nextWeek(), update, {
      shiftKickoffMs: 3_600_000,
      rename: { 'Manchester United': 'Man United' },
    });
    server.publish('/v4/sports/soccer_epl/odds.json', { body });
    const o = await poll('feed', new Date(update.getTime() + 5 * 60_000));
    assert.equal(o.status, 'ok', o.message ?? '');
    assert.equal(o.code, 'MC_ERR_SOURCE_UNKNOWN_TEAMS');
    assert.deepEqual(
      o.unmatched.map((u) => [u.region, u.name, u.closest[0]]),
      [['England', 'Man United', 'Manchester United']],
    );
    const withUnited = nextWeek().filter(
      (r) => r.home === 'Manchester United' || r.away === 'Manchester United',
    );
    assert.equal(withUnited.length, 1);
    let obs = await readOddsObservations(env);
    const fromFeed = () => obs.filter((x) => x.source === 'feed:avg');
    // Per event: 1x2 at the newest bookmaker last_update, the average of both books; ou25 too.
    assert.equal(fromFeed().filter((x) => x.market === '1x2').length, nextWeek().length - 1);
    assert.ok(fromFeed().every((x) => x.observed_at.getTime() === update.getTime()));
    const r = nextWeek().find((x) => x !== withUnited[0]) as SeasonRow;
    const [m] = await env.db.query<{ id: number }>(
      'SELECT id FROM matches WHERE home_team_name = $1 AND start_time_utc = $2',
      [r.home, r.kickoff],
    );
    const x = fromFeed().find((y) => y.match_id === m.id && y.market === '1x2');
    assert.deepEqual(
      x?.prices,
      [Number(r.close[0]) + 0.01, Number(r.close[1]) + 0.01, Number(r.close[2]) + 0.01].map(
        (p) => Math.round(p * 1000) / 1000,
      ),
    );

    const listed = await cli(sourcesCommand, 'list');
    assert.match(
      listed.out,
      /unknown team England: "Man United" \(1 row\(s\) held\); closest: "Manchester United"/,
    );
    assert.match(listed.out, /last warning \(of the last good poll\) \S+ MC_ERR_SOURCE_UNKNOWN_TEAMS/);
    const [teams] = await env.db.query<{ n: number }>(
      "SELECT count(*) AS n FROM matches WHERE 'Man United' IN (home_team_name, away_team_name)",
    );
    assert.equal(teams.n, 0, 'never created as a team');

    const alias = await cli(teamsCommand, 'alias', 'Man United', 'Manchester United');
    assert.equal(alias.code, 0, alias.err);
    assert.match(alias.out, /England: "Man United" → "Manchester United"/);
    const again = await poll('feed', new Date(update.getTime() + 20 * 60_000));
    assert.equal(again.status, 'ok', again.message ?? '');
    assert.equal(again.code, null);
    assert.deepEqual(again.unmatched, []);
    obs = await readOddsObservations(env);
    assert.equal(fromFeed().filter((y) => y.market === '1x2').length, nextWeek().length);
  });

  test('a fixture of a known league with both names unknown waits; teams add accepts new teams', async () => {
    const at = new Date(t0.getTime() + 4 * DAY);
    const stranger: SeasonRow = {
      ...nextWeek()[0],
      home: 'Ipswich',
      away: 'Sunderland',
      kickoff: new Date(t0.getTime() + 5 * DAY),
    };
    server.publish('/fixtures.csv', { body: footballDataFixtures([...nextWeek(), stranger], 0.1) });
    const o = await poll('fixtures', at);
    assert.equal(o.code, 'MC_ERR_SOURCE_UNKNOWN_TEAMS');
    assert.deepEqual(
      o.unmatched.map((u) => u.name),
      ['Ipswich', 'Sunderland'],
    );
    const count = async () =>
      (
        await env.db.query<{ n: number }>(
          "SELECT count(*) AS n FROM matches WHERE home_team_name = 'Ipswich' AND away_team_name = 'Sunderland'",
        )
      )[0].n;
    assert.equal(await count(), 0);
    const refused = await cli(teamsCommand, 'alias', 'Ipswich', 'Ipswich Town');
    assert.equal(refused.code, 1);
    assert.match(refused.err, /MC_ERR_NOT_FOUND/);
    for (const team of ['Ipswich', 'Sunderland']) {
      const r = await cli(teamsCommand, 'add', team, '--region', 'England');
      assert.equal(r.code, 0, r.err);
    }
    const listed = await cli(teamsCommand, 'aliases');
    assert.match(listed.out, /England: "Ipswich" \(accepted as a new team\)/);
    // The source held rows: it reads its whole body again (no 304), and the fixture comes in.
    const again = await poll('fixtures', new Date(at.getTime() + 60_000));
    assert.equal(again.status, 'ok', again.message ?? '');
    assert.equal(again.code, null);
    assert.equal(await count(), 1);
    const removed = await cli(teamsCommand, 'unalias', 'Sunderland');
    assert.equal(removed.code, 0, removed.err);
  });

  test('the results file of the next week closes the fixtures (same matches, now finished)', async () => {
    const t1 = new Date(t0.getTime() + 7 * DAY);
    const [before] = await env.db.query<{ n: number }>('SELECT count(*) AS n FROM matches');
    await writeFile(resultsFile, sharedCsv(playedBy(season, t1)));
    const o = await poll('results', t1);
    assert.equal(o.status, 'ok', o.message ?? '');
    assert.equal(o.report?.inserted, 0, 'no duplicate of a fixture');
    assert.equal(o.report?.updated, nextWeek().length);
    const [after] = await env.db.query<{ n: number }>('SELECT count(*) AS n FROM matches');
    assert.equal(after.n, before.n);
    const open = await env.db.query<{ home_team_name: string }>(
      "SELECT home_team_name FROM matches WHERE status = 'scheduled'",
    );
    assert.deepEqual(
      open.map((m) => m.home_team_name),
      ['Ipswich'],
      'only the fixture no results file has played yet',
    );
  });
});
