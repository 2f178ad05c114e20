// A price that comes back is news: A → B → A keeps three observations and serves A. Only a repeat of
// the source's LATEST price of the market (the same price observed again) is dropped.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { MatchesRepository } from '../../src/db/index.js';
import { OddsTimeline } from '../../src/domain/index.js';
import { ingestPath, readOddsFile, readOddsObservations } from '../../src/ingest/index.js';
import { caseFiles, type IngestEnv, ingestEnv } from './helpers.js';

const HOUR = 3_600_000;
const RESULTS_HEADER =
  'Date,country,league,Season,HomeTeam,AwayTeam,FTHG,FTAG,home_close,home_open,draw_close,draw_open,away_close,away_open';
const ODDS_HEADER = 'match_id,observed_at,odd_home,odd_draw,odd_away,source';
const A = '2.10,3.40,3.60';
const B = '2.50,3.30,2.90';

describe('repeated prices are compared with the latest observation only', () => {
  let env: IngestEnv;
  let dir: string;
  const file = caseFiles(() => dir);
  /** A fixture (no score) kicking off at `kickoff`, loaded without prices; returns its id. */
  const fixture = async (home: string, kickoff: string): Promise<number> => {
    await ingestPath(
      file(`${RESULTS_HEADER}\n${kickoff},italy,serie-a,2030-2031,${home},${home} B,,,,,,,,\n`),
      env,
      { now: new Date('2030-01-01T00:00:00Z') },
    );
    const m = (await new MatchesRepository(env.db).allMatches()).find((x) => x.homeTeamName === home);
    assert.ok(m);
    return m.id;
  };
  const feed = async (id: number) =>
    (await readOddsObservations(env))
      .filter((o) => o.match_id === id && o.source === 'feed')
      .map((o) => [o.observed_at.toISOString(), o.prices[0]]);
  const served = async (id: number) =>
    (await readOddsFile(env.store)).find((r) => r.match_id === id)?.odd_home;
  const at = (h: number) => new Date(Date.UTC(2030, 5, 1) + h * HOUR).toISOString();
  const now = { now: new Date('2030-06-10T00:00:00Z') };

  before(async () => {
    env = await ingestEnv();
    dir = path.join(env.config.dataDir, 'files');
  });
  after(async () => env?.cleanup());

  test('A → B → A in one file: three observations; the served and latest price is A', async () => {
    const id = await fixture('Aback', '2030-06-02 18:00:00');
    const f = file(
      [ODDS_HEADER, `${id},${at(0)},${A},feed`, `${id},${at(1)},${B},feed`, `${id},${at(2)},${A},feed`].join(
        '\n',
      ),
    );
    const report = await ingestPath(f, env, now);
    assert.deepEqual(report.skipped, []);
    assert.deepEqual(await feed(id), [
      [at(0), 2.1],
      [at(1), 2.5],
      [at(2), 2.1],
    ]);
    assert.equal(await served(id), 2.1, 'the odds file serves the return to A');
    const timeline = OddsTimeline.from(await readOddsObservations(env));
    assert.equal(timeline.latest(id, '1x2', new Date(at(3)))?.prices[0], 2.1, 'features see A');
    assert.equal(timeline.latest(id, '1x2', new Date(at(1)))?.prices[0], 2.5);
  });

  test('A → B, then A in a later ingest; rows out of time order give the same result', async () => {
    const id = await fixture('Later', '2030-06-02 18:00:00');
    await ingestPath(
      file([ODDS_HEADER, `${id},${at(0)},${A},feed`, `${id},${at(1)},${B},feed`].join('\n')),
      env,
      now,
    );
    await ingestPath(file([ODDS_HEADER, `${id},${at(2)},${A},feed`].join('\n')), env, now);
    assert.deepEqual(
      (await feed(id)).map((o) => o[1]),
      [2.1, 2.5, 2.1],
    );
    assert.equal(await served(id), 2.1);

    const other = await fixture('Shuffled', '2030-06-02 18:00:00');
    await ingestPath(
      file(
        [
          ODDS_HEADER,
          `${other},${at(2)},${A},feed`,
          `${other},${at(0)},${A},feed`,
          `${other},${at(1)},${B},feed`,
        ].join('\n'),
      ),
      env,
      now,
    );
    assert.deepEqual(
      (await feed(other)).map((o) => o[1]),
      [2.1, 2.5, 2.1],
    );
    assert.equal(await served(other), 2.1);
  });

  test('the same price again (A → A) from the same source adds nothing; from another source it is kept', async () => {
    const id = await fixture('Steady', '2030-06-02 18:00:00');
    const f = file(
      [
        ODDS_HEADER,
        `${id},${at(0)},${A},feed`,
        `${id},${at(1)},${A},feed`,
        `${id},${at(2)},${A},other`,
        `${id},${at(3)},${A},feed`,
      ].join('\n'),
    );
    const report = await ingestPath(f, env, now);
    assert.equal(report.observationsRead, 4);
    assert.deepEqual(await feed(id), [[at(0), 2.1]]);
    const obs = (await readOddsObservations(env)).filter((o) => o.match_id === id);
    assert.deepEqual(obs.map((o) => o.source).sort(), ['feed', 'other']);
  });

  test('a fixture re-ingested from a results file: its unchanged current price does not pile up', async () => {
    // Kick-off within 48 h of both "nows": the closing column is the current (intermediate) price at now.
    const row = `2030-06-03 18:00:00,italy,serie-a,2030-2031,Current,Current B,,,2.2,2.3,3.3,3.2,3.4,3.3`;
    const f = file(`${RESULTS_HEADER}\n${row}\n`);
    await ingestPath(f, env, { now: new Date('2030-06-02T10:00:00Z') });
    const count = async () => (await readOddsObservations(env)).filter((o) => o.prices[0] === 2.2).length;
    assert.equal(await count(), 1);
    await ingestPath(f, env, { now: new Date('2030-06-02T12:00:00Z') });
    await ingestPath(f, env, { now: new Date('2030-06-02T14:00:00Z') });
    assert.equal(await count(), 1, 'the same current price observed again is not a new observation');
  });
});
