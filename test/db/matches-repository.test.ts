import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MatchesRepository, type MatchUpsert } from '../../src/db/index.js';
import { BACKENDS } from './helpers.js';

function match(over: Partial<MatchUpsert> & Pick<MatchUpsert, 'startTimeUtc'>): MatchUpsert {
  return {
    regionName: 'England',
    tournamentName: 'Premier League',
    season: '2023-2024',
    homeTeamName: 'Arsenal',
    awayTeamName: 'Chelsea',
    status: 'finished',
    homeScore: 2,
    awayScore: 1,
    ...over,
  };
}

const at = (iso: string) => new Date(iso);

for (const backend of BACKENDS) {
  describe(`MatchesRepository on ${backend.name}`, { skip: backend.skip }, () => {
    test('upsert is idempotent on the natural key: ids stable, identical rows untouched, changes applied', async () => {
      const { db, cleanup } = await backend.open();
      try {
        const repo = new MatchesRepository(db, 2); // tiny batches exercise the batching
        const rows: MatchUpsert[] = [
          match({ startTimeUtc: at('2023-08-12T14:00:00Z') }),
          match({
            startTimeUtc: at('2023-08-13T16:30:00Z'),
            homeTeamName: 'Liverpool',
            awayTeamName: 'Everton',
          }),
          match({
            startTimeUtc: at('2024-06-01T19:00:00Z'),
            regionName: 'Spain',
            tournamentName: 'LaLiga',
            homeTeamName: 'Sevilla',
            awayTeamName: 'Betis',
            status: 'scheduled',
            homeScore: null,
            awayScore: null,
          }),
        ];
        const first = await repo.upsertMatches(rows);
        assert.deepEqual(
          { ...first, ids: undefined, changed: undefined },
          { inserted: 3, updated: 0, unchanged: 0, ids: undefined, changed: undefined },
        );
        assert.equal(new Set(first.ids).size, 3);
        assert.deepEqual([...first.changed].sort(), [...first.ids].sort(), 'every inserted row is changed');
        assert.equal(await repo.count(), 3);

        const stamps = await db.query<{ id: number; updated_at: Date }>(
          'SELECT id, updated_at FROM matches ORDER BY id',
        );
        const second = await repo.upsertMatches(rows);
        assert.deepEqual(second, { inserted: 0, updated: 0, unchanged: 3, ids: first.ids, changed: [] });
        assert.deepEqual(
          await db.query<{ id: number; updated_at: Date }>('SELECT id, updated_at FROM matches ORDER BY id'),
          stamps,
          'an identical upsert does not move updated_at',
        );

        // The fixture is played: same key, new status and score → updated, same id.
        const played = { ...rows[2], status: 'finished' as const, homeScore: 0, awayScore: 0 };
        const third = await repo.upsertMatches([played, rows[0]]);
        assert.deepEqual(third, {
          inserted: 0,
          updated: 1,
          unchanged: 1,
          ids: [first.ids[2], first.ids[0]],
          changed: [first.ids[2]],
        });

        // Duplicates of one key within a call: the last wins, both get the same id.
        const dup = await repo.upsertMatches([
          match({ startTimeUtc: at('2023-09-01T19:00:00Z'), homeScore: 1 }),
          match({ startTimeUtc: at('2023-09-01T19:00:00Z'), homeScore: 3 }),
        ]);
        assert.equal(dup.inserted, 1);
        assert.equal(dup.ids[0], dup.ids[1]);

        const all = await repo.allMatches();
        assert.equal(all.length, 4);
        const sevilla = all.find((m) => m.homeTeamName === 'Sevilla');
        assert.deepEqual(sevilla && { ...sevilla, regionId: 0 }, {
          id: first.ids[2],
          regionId: 0,
          regionName: 'Spain',
          tournamentName: 'LaLiga',
          season: '2023-2024',
          startTimeUtc: at('2024-06-01T19:00:00Z'),
          homeTeamName: 'Sevilla',
          awayTeamName: 'Betis',
          status: 'finished',
          homeScore: 0,
          awayScore: 0,
        });
        assert.equal(
          all.find((m) => m.startTimeUtc.getTime() === at('2023-09-01T19:00:00Z').getTime())?.homeScore,
          3,
        );
        // Ordered by start time; regions get one id each.
        assert.deepEqual(
          all.map((m) => m.startTimeUtc.getTime()),
          [...all.map((m) => m.startTimeUtc.getTime())].sort((a, b) => a - b),
        );
        const england = all.filter((m) => m.regionName === 'England').map((m) => m.regionId);
        assert.equal(new Set(england).size, 1);
        assert.notEqual(england[0], sevilla?.regionId);

        // Invalid rows are refused by the schema's checks, and nothing of that call is kept.
        await assert.rejects(
          repo.upsertMatches([
            match({ startTimeUtc: at('2025-01-01T12:00:00Z') }),
            match({ startTimeUtc: at('2025-01-02T12:00:00Z'), status: 'finished', homeScore: null }),
          ]),
        );
        assert.equal(await repo.count(), 4);
        assert.deepEqual(await repo.upsertMatches([]), {
          inserted: 0,
          updated: 0,
          unchanged: 0,
          ids: [],
          changed: [],
        });
      } finally {
        await cleanup();
      }
    });

    test('listLivescores filters by UTC year/month, orders newest first, pages with limit/offset', async () => {
      const { db, cleanup } = await backend.open();
      try {
        const repo = new MatchesRepository(db);
        const times = [
          '2022-12-31T23:59:59Z', // previous year
          '2023-01-01T00:00:00Z', // first instant of 2023
          '2023-02-10T15:00:00Z',
          '2023-02-20T15:00:00Z',
          '2023-02-20T15:00:00Z', // same instant, other teams: tie broken by id desc
          '2023-12-31T23:59:59Z',
          '2024-01-01T00:00:00Z', // next year
        ];
        const { ids } = await repo.upsertMatches(
          times.map((t, i) =>
            match({
              startTimeUtc: at(t),
              homeTeamName: `Home ${i}`,
              awayTeamName: `Away ${i}`,
              season: '2022-2023',
            }),
          ),
        );

        const year = await repo.listLivescores({ year: 2023, limit: 100, offset: 0 });
        assert.deepEqual(
          year.map((r) => r.startTimeUtc),
          [
            '2023-12-31T23:59:59.000Z',
            '2023-02-20T15:00:00.000Z',
            '2023-02-20T15:00:00.000Z',
            '2023-02-10T15:00:00.000Z',
            '2023-01-01T00:00:00.000Z',
          ],
        );
        assert.deepEqual([year[1].id, year[2].id], [ids[4], ids[3]]);
        assert.deepEqual(year[0], {
          id: ids[5],
          startTimeUtc: '2023-12-31T23:59:59.000Z',
          status: 'finished',
          homeTeamName: 'Home 5',
          awayTeamName: 'Away 5',
          homeScore: 2,
          awayScore: 1,
          regionId: year[0].regionId,
          regionName: 'England',
          tournamentName: 'Premier League',
          season: '2022-2023',
        });
        assert.equal(typeof year[0].regionId, 'number');

        const feb = await repo.listLivescores({ year: 2023, month: 2, limit: 100, offset: 0 });
        assert.deepEqual(
          feb.map((r) => r.id),
          [ids[4], ids[3], ids[2]],
        );
        const dec = await repo.listLivescores({ year: 2023, month: 12, limit: 100, offset: 0 });
        assert.deepEqual(
          dec.map((r) => r.id),
          [ids[5]],
        );
        assert.deepEqual(await repo.listLivescores({ year: 2023, month: 3, limit: 100, offset: 0 }), []);

        const page = await repo.listLivescores({ year: 2023, limit: 2, offset: 1 });
        assert.deepEqual(
          page.map((r) => r.id),
          [year[1].id, year[2].id],
        );
        assert.deepEqual(await repo.listLivescores({ year: 2023, limit: 10, offset: 5 }), []);
        assert.equal(
          (await repo.listLivescores({ year: 2023, limit: 10, offset: 0 }, { timeoutMs: 2000 })).length,
          5,
        );
      } finally {
        await cleanup();
      }
    });
  });
}
