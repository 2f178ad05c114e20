import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assessDataQuality } from '../../src/analytics/data-quality.js';
import type { Match, OddsRecord } from '../../src/domain/index.js';

const AS_OF = new Date('2026-03-01T00:00:00Z');

function m(id: number, iso: string, home: string, away: string, score: [number, number] | null): Match {
  return {
    id,
    regionId: 1,
    regionName: 'england',
    tournamentName: 'Premier League',
    season: '2025-2026',
    startTimeUtc: new Date(iso),
    homeTeamName: home,
    awayTeamName: away,
    status: score ? 'finished' : 'scheduled',
    homeScore: score?.[0] ?? null,
    awayScore: score?.[1] ?? null,
  };
}

function o(id: number, h: number | null, d: number | null, a: number | null): OddsRecord {
  return {
    match_id: id,
    odd_home: h,
    odd_draw: d,
    odd_away: a,
    open_home: null,
    open_draw: null,
    open_away: null,
    close_home: h,
    close_draw: d,
    close_away: a,
    source: 't',
  };
}

const byId = (r: ReturnType<typeof assessDataQuality>, id: string) => r.checks.find((c) => c.id === id)!;

test('clean data passes every check', () => {
  const r = assessDataQuality({
    asOf: AS_OF,
    matches: [m(1, '2026-02-25T15:00:00Z', 'A', 'B', [1, 0]), m(2, '2026-03-05T15:00:00Z', 'C', 'D', null)],
    odds: [o(1, 2.1, 3.4, 3.6), o(2, 1.9, 3.5, 4.2)],
    featureRows: [
      { match_id: 1, x: 1 },
      { match_id: 2, x: 2 },
    ],
    featureNames: ['x'],
  });
  assert.equal(r.status, 'ok', JSON.stringify(r.checks.filter((c) => c.status !== 'ok')));
});

test('impossible odds: below 1.01 or overround outside [0, 30] %; history warns, the window fails', () => {
  const matches = [
    m(1, '2025-01-10T15:00:00Z', 'A', 'B', [1, 0]),
    m(2, '2025-01-17T15:00:00Z', 'A', 'C', [1, 1]),
    m(3, '2026-02-25T15:00:00Z', 'B', 'C', [0, 2]),
  ];
  const base = {
    asOf: AS_OF,
    matches,
    featureRows: [],
    featureNames: [],
    windowStart: new Date('2026-01-30T00:00:00Z'),
  };
  const history = assessDataQuality({
    ...base,
    odds: [o(1, 1.0, 3, 4), o(2, 1.5, 1.5, 1.5), o(3, 2, 3.4, 3.9)],
  });
  const c = byId(history, 'impossible_odds');
  assert.equal(c.count, 2);
  assert.equal(c.status, 'warn');
  const current = assessDataQuality({ ...base, odds: [o(3, 2.5, 3.8, 4.5)] }); // overround ≈ −7 %
  assert.equal(byId(current, 'impossible_odds').status, 'fail');
  assert.equal(byId(current, 'impossible_odds').count, 1);
});

test('duplicates, out-of-range scores and probabilities, stale data, heavy missingness', () => {
  const r = assessDataQuality({
    asOf: AS_OF,
    matches: [
      m(1, '2026-01-01T15:00:00Z', 'A', 'B', [1, 0]),
      m(2, '2026-01-01T18:00:00Z', 'A', 'C', [25, 0]),
    ],
    odds: [o(1, 2, 3.4, 3.6)],
    featureRows: [
      { match_id: 1, x: null },
      { match_id: 1, x: null },
    ],
    featureNames: ['x'],
    predictionRows: [{ match_id: 1, proba_home: 0.7, proba_draw: 0.7, proba_away: 0.1 }],
  });
  assert.equal(byId(r, 'duplicates').count, 2); // A twice on one day; match_id 1 twice in features
  assert.equal(byId(r, 'out_of_range').status, 'fail');
  assert.equal(byId(r, 'out_of_range').count, 2); // 25 goals; probabilities summing to 1.5
  assert.equal(byId(r, 'stale_data').status, 'warn'); // newest result 59 days old
  assert.equal(byId(r, 'missing_values').status, 'warn');
  assert.equal(r.status, 'fail');
});
