// Every poll is an observation: the odds of a JSON feed are stored at the feed's last_update and the
// matches they touch are re-predicted and published at once, as `matchcast ingest` does.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sourcesCommand } from '../../src/cli/sources.js';
import { MatchesRepository } from '../../src/db/index.js';
import { bootstrapFirstRun } from '../../src/pipeline/index.js';
import { decodePredictionRows } from '../../src/pipeline/repredict.js';
import { readArtifact, readPublished, readRunRecord } from '../../src/runs/index.js';
import { openTestEnv, smallLeague, type TestEnv } from '../pipeline/fixtures.js';
import { sourceServer } from './season.js';

const AS_OF = new Date('2023-09-15T00:00:00Z');

describe('a poll re-predicts and publishes the matches it changed', () => {
  let env: TestEnv;
  let server: Awaited<ReturnType<typeof sourceServer>>;
  const cli = async (...argv: string[]) => {
    let out = '';
    let err = '';
    const code = await sourcesCommand(argv, {
      config: env.config,
      deps: { db: env.deps.db, store: env.deps.store },
      out: (t) => {
        out += t;
      },
      err: (t) => {
        err += t;
      },
    });
    return { code, out, err };
  };
  before(async () => {
    env = await openTestEnv(smallLeague());
    server = await sourceServer();
    await bootstrapFirstRun(env.deps, AS_OF, {
      backtestFrom: new Date('2022-08-01Z'),
      refitDays: 90,
      analytics: {},
    });
  });
  after(async () => {
    await server?.close();
    await env?.close();
  });

  test('a JSON feed event of a fixture: stored at last_update, re-predicted, published', async () => {
    const matches = await new MatchesRepository(env.deps.db).allMatches();
    const fixture = matches.find(
      (m) => m.regionName === 'Northland' && m.startTimeUtc.getTime() > AS_OF.getTime() + 20 * 86_400_000,
    )!;
    const now = new Date(fixture.startTimeUtc.getTime() - 6 * 3_600_000);
    const update = new Date(now.getTime() - 3_600_000);
    server.publish('/odds.json', {
      body: JSON.stringify({
        data: [
          {
            sport_key: 'soccer_northland',
            commence_time: fixture.startTimeUtc.toISOString(),
            home_team: fixture.homeTeamName.toUpperCase(),
            away_team: fixture.awayTeamName,
            bookmakers: [
              {
                key: 'b1',
                last_update: update.toISOString(),
                markets: [
                  {
                    key: 'h2h',
                    outcomes: [
                      { name: fixture.homeTeamName, price: 1.3 },
                      { name: 'Draw', price: 5.5 },
                      { name: fixture.awayTeamName, price: 10 },
                    ],
                  },
                ],
              },
            ],
          },
        ],
      }),
    });
    const add = await cli(
      'add',
      'northland',
      server.url('/odds.json'),
      '--region',
      'Northland',
      '--tournament',
      'Northland League',
    );
    assert.equal(add.code, 0, add.err);
    const parent = await readPublished(env.deps.db);
    const before = (await decodePredictionRows((await readArtifact(env.deps, 'predictions'))!.body)).find(
      (r) => r.match_id === fixture.id,
    )!;

    const polled = await cli('poll', 'northland', '--now', now.toISOString());
    assert.equal(polled.code, 0, polled.err);
    assert.match(polled.out, /northland: 1 row\(s\) added/);
    assert.match(polled.out, /predictions: 1 re-predicted, 0 updated; run \S+ published/);
    const published = await readPublished(env.deps.db);
    assert.ok(published && published.run_id !== parent?.run_id);
    assert.equal((await readRunRecord(env.deps.db, published.run_id))?.kind, 'incremental');
    const row = (await decodePredictionRows((await readArtifact(env.deps, 'predictions'))!.body)).find(
      (r) => r.match_id === fixture.id,
    )!;
    assert.equal(row.odds_observed_at?.getTime(), update.getTime());
    assert.ok(row.proba_home > before.proba_home + 0.05, 'a short home price moves the home probability up');

    // The same feed again: a 304, nothing re-predicted, nothing published.
    const again = await cli('poll', 'northland', '--now', new Date(now.getTime() + 60_000).toISOString());
    assert.match(again.out, /northland: nothing new/);
    assert.equal((await readPublished(env.deps.db))?.run_id, published.run_id);
  });
});
