import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MatchesRepository } from '../../src/db/index.js';
import { KEYS } from '../../src/domain/index.js';
import { ingestSynthetic, type PriceSet, readOddsFile } from '../../src/ingest/index.js';
import { type SyntheticOptions, streamSyntheticLeague } from '../../src/ingest/synthetic.js';
import { type IngestEnv, ingestEnv } from './helpers.js';

const NOW = new Date('2026-11-18T10:00:00Z');

/** The whole league at once: its regions and every match, season after season. */
function wholeLeague(options: SyntheticOptions) {
  const { regions, seasons } = streamSyntheticLeague(options);
  return { regions, matches: [...seasons].flat() };
}

/** A generated match's 1X2 prices of one kind, or undefined. */
function odds(m: { prices: readonly PriceSet[] }, kind: 'opening' | 'closing'): number[] | undefined {
  return m.prices.find((p) => p.market === '1x2' && p.kind === kind)?.prices;
}

describe('streamSyntheticLeague', () => {
  test('is deterministic: same seed and now → same data; another seed → other data', () => {
    const a = wholeLeague({ seed: 7, now: NOW });
    const b = wholeLeague({ seed: 7, now: NOW });
    assert.deepEqual(a, b);
    const c = wholeLeague({ seed: 8, now: NOW });
    assert.notDeepEqual(
      c.matches.map((m) => [m.match.homeScore, m.match.awayScore]),
      a.matches.map((m) => [m.match.homeScore, m.match.awayScore]),
    );
  });

  test('regions × teams × seasons of double round robins in weekly rounds', () => {
    const league = wholeLeague({ seed: 1, now: NOW, regions: 3, teamsPerRegion: 12, seasons: 2 });
    assert.equal(league.regions.length, 3);
    assert.equal(league.matches.length, 3 * 2 * 12 * 11);
    for (const region of league.regions) {
      assert.equal(region.teams.length, 12);
      for (const season of new Set(league.matches.map((m) => m.match.season))) {
        const games = league.matches.filter(
          (m) => m.match.regionName === region.name && m.match.season === season,
        );
        const pairs = new Set(games.map((m) => `${m.match.homeTeamName}|${m.match.awayTeamName}`));
        assert.equal(pairs.size, 12 * 11, 'every ordered pair once: home and away against everyone');
      }
    }
    const names = league.matches.map((m) => m.match.startTimeUtc.getTime());
    assert.deepEqual(
      names,
      [...names].sort((x, y) => x - y),
      'ordered by kick-off',
    );
    // Defaults: 4 regions of 12–16 teams, 4 seasons.
    const dflt = wholeLeague({ seed: 1, now: NOW });
    assert.equal(dflt.regions.length, 4);
    assert.ok(dflt.regions.every((r) => r.teams.length >= 12 && r.teams.length <= 16));
    assert.equal(new Set(dflt.matches.map((m) => m.match.season)).size, 4);
  });

  test('the current season straddles now: played matches have scores and closing odds, fixtures odds and no score', () => {
    const { matches } = wholeLeague({ seed: 3, now: NOW });
    const past = matches.filter((m) => m.match.startTimeUtc < NOW);
    const future = matches.filter((m) => m.match.startTimeUtc >= NOW);
    assert.ok(future.length > 50, `${future.length} fixtures`);
    for (const m of past) {
      assert.equal(m.match.status, 'finished');
      assert.ok(Number.isInteger(m.match.homeScore) && Number.isInteger(m.match.awayScore));
      assert.ok(odds(m, 'closing')?.length === 3 && odds(m, 'opening')?.length === 3);
    }
    for (const m of future) {
      assert.equal(m.match.status, 'scheduled');
      assert.equal(m.match.homeScore, null);
      assert.equal(m.match.awayScore, null);
      assert.ok(
        odds(m, 'opening')?.every((p) => p > 1),
        'fixtures are priced',
      );
      assert.equal(odds(m, 'closing'), undefined);
    }
    // Same season on both sides of now.
    const current = matches.at(-1)?.match.season;
    assert.ok(past.some((m) => m.match.season === current));

    // Bookmaker margin 5–6 % (odds rounded to cents), realistic outcome rates.
    const overrounds = past.map((m) => odds(m, 'closing')!.reduce((s, x) => s + 1 / x, 0) - 1);
    const mean = overrounds.reduce((s, x) => s + x, 0) / overrounds.length;
    assert.ok(mean > 0.049 && mean < 0.061, `mean overround ${mean}`);
    const homeWins = past.filter((m) => m.match.homeScore! > m.match.awayScore!).length / past.length;
    const draws = past.filter((m) => m.match.homeScore === m.match.awayScore).length / past.length;
    assert.ok(homeWins > 0.38 && homeWins < 0.52, `home wins ${homeWins}`);
    assert.ok(draws > 0.18 && draws < 0.32, `draws ${draws}`);
  });

  test('homeAdvantageShift changes matches from its date on, and only those', () => {
    const from = new Date('2026-01-01T00:00:00Z');
    const base = wholeLeague({ seed: 5, now: NOW });
    const shifted = wholeLeague({ seed: 5, now: NOW, homeAdvantageShift: { from, delta: 0.5 } });
    const p = (l: typeof base, after: boolean) =>
      l.matches.filter((m) => m.match.startTimeUtc >= from === after).map((m) => m.trueProbabilities[0]);
    assert.deepEqual(p(shifted, false), p(base, false));
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    assert.ok(mean(p(shifted, true)) > mean(p(base, true)) + 0.05);
  });
});

describe('ingestSynthetic', () => {
  let env: IngestEnv;
  before(async () => {
    env = await ingestEnv();
  });
  after(async () => env?.cleanup());

  test('loads the league and its odds; a second run changes nothing', async () => {
    const options = { seed: 11, now: NOW, regions: 2, teamsPerRegion: 12, seasons: 2 };
    const first = await ingestSynthetic(options, env);
    const n = 2 * 2 * 12 * 11;
    assert.deepEqual(
      { files: first.files, rowsRead: first.rowsRead, inserted: first.inserted, oddsRows: first.oddsRows },
      { files: 0, rowsRead: n, inserted: n, oddsRows: n },
    );
    const repo = new MatchesRepository(env.db);
    assert.equal(await repo.count(), n);
    const odds = await readOddsFile(env.store);
    assert.ok(odds.every((o) => o.source === 'synthetic' && o.odd_home !== null));
    const etag = (await env.store.head(KEYS.odds.bucket, KEYS.odds.key))?.etag;

    const second = await ingestSynthetic(options, env);
    assert.deepEqual(
      { inserted: second.inserted, updated: second.updated, unchanged: second.unchanged },
      { inserted: 0, updated: 0, unchanged: n },
    );
    assert.equal((await env.store.head(KEYS.odds.bucket, KEYS.odds.key))?.etag, etag);
    const livescores = await repo.listLivescores({ year: 2026, month: 12, limit: 10, offset: 0 });
    assert.ok(
      livescores.length > 0 && livescores.every((r) => r.status === 'scheduled' && r.homeScore === null),
    );
  });
});
