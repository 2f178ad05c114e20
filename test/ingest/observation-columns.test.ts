// The columnar odds observations a worker holds for live goals markets give, for every match and
// market, exactly the observations an OddsTimeline of the same file gives (values, order, kinds, sources).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MARKET_OUTCOMES, type OddsObservation, OddsTimeline } from '../../src/domain/index.js';
import { ObservationColumns } from '../../src/ingest/observation-columns.js';
import { rng } from '../features/league-fixture.js';

const ODDS_MARKETS = Object.keys(MARKET_OUTCOMES) as (keyof typeof MARKET_OUTCOMES)[];
const ODDS_KINDS = ['opening', 'intermediate', 'closing'] as const;

test('the columnar observations equal the timeline of the same observations', () => {
  const r = rng(7);
  const list: OddsObservation[] = [];
  for (let i = 0; i < 3000; i++) {
    const market = ODDS_MARKETS[Math.floor(r() * ODDS_MARKETS.length)];
    list.push({
      // Matches interleaved, times out of order and some equal: the order within a match is the file's.
      match_id: 1 + Math.floor(r() * 200),
      market,
      kind: ODDS_KINDS[Math.floor(r() * ODDS_KINDS.length)],
      observed_at: new Date(Date.UTC(2024, 0, 1) + Math.floor(r() * 50) * 3_600_000),
      prices: MARKET_OUTCOMES[market].map(() => 1 + Math.round(r() * 500) / 100),
      source: ['football-csv', 'football-data.co.uk:Avg', 'synthetic'][Math.floor(r() * 3)],
    });
  }
  const timeline = OddsTimeline.from(list);
  const columns = ObservationColumns.of(list).byMatch();
  assert.equal(columns.size, list.length);
  for (let id = 0; id <= 201; id++) {
    for (const market of ODDS_MARKETS) {
      assert.deepEqual(columns.of(id, market), timeline.of(id, market), `match ${id} ${market}`);
    }
  }
  assert.deepEqual(ObservationColumns.of([]).byMatch().of(1, '1x2'), []);
});
