import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { OddsRecord } from '../../src/domain/index.js';
import {
  buildFeatureRows,
  type FeatureRow,
  MARKET_FREE_FEATURE_NAMES,
  MODEL_FEATURE_NAMES,
} from '../../src/features/index.js';
import { syntheticLeague } from './league-fixture.js';

// Goal ratings (groups/goal-rating.ts): moved by the closing 1X2 + O/U 2.5 prices of played matches.
const { matches, odds: base } = syntheticLeague({ seed: 9, regions: 1, seasons: 2, teams: 6 });
const END = new Date('2030-01-01T00:00:00Z');

/** The league's odds with closing O/U 2.5 prices: an over price `over` for every match with 1X2 prices. */
function withOu(over: (id: number) => number): Map<number, OddsRecord> {
  const o = new Map<number, OddsRecord>();
  for (const [id, r] of base) {
    const p = over(id);
    o.set(id, { ...r, close_over25: 1 / (p * 1.05), close_under25: 1 / ((1 - p) * 1.05) });
  }
  return o;
}

const rowsOf = (odds: Map<number, OddsRecord>): Map<number, FeatureRow> =>
  new Map(buildFeatureRows(matches, odds, END).map((r) => [r.match_id, r]));

test('goal ratings are inputs of the 1X2 model and of the market-free fallback', () => {
  for (const n of ['gr_sup', 'gr_total']) {
    assert.ok(MODEL_FEATURE_NAMES.includes(n as never), n);
    assert.ok(MARKET_FREE_FEATURE_NAMES.includes(n as never), n);
  }
});

test('higher closing over prices raise gr_total of later matches only; none moves without O/U prices', () => {
  const none = rowsOf(base);
  // Without O/U prices nothing moves the ratings: every row has the starting values.
  const first = [...none.values()][0];
  for (const r of none.values()) {
    assert.equal(r.gr_total, first.gr_total);
    assert.equal(r.gr_sup, first.gr_sup);
  }
  const low = rowsOf(withOu(() => 0.35));
  const high = rowsOf(withOu(() => 0.7));
  const kickoffs = [...new Set(matches.map((m) => m.startTimeUtc.getTime()))].sort((a, b) => a - b);
  for (const m of matches) {
    const l = low.get(m.id)!;
    const h = high.get(m.id)!;
    if (m.startTimeUtc.getTime() === kickoffs[0]) {
      // The first round has no earlier closing price: the same either way.
      assert.equal(h.gr_total, l.gr_total);
    } else if (m.startTimeUtc.getTime() >= kickoffs[3]) {
      assert.ok((h.gr_total as number) > (l.gr_total as number), `match ${m.id}`);
    }
  }
});
