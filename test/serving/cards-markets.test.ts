import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { predictionRows, putPredictions } from '../../bench/precomputed-fixtures.js';
import * as goals from '../../src/model/index.js';
import { identityOf } from '../../src/serving/encoded-body.js';
import { writeParquet } from '../../src/storage/index.js';
import { publishArtifacts } from '../helpers/served.js';
import { type Harness, harness, until } from './harness.js';

const GOALS_FIELDS = [
  'expected_home_goals',
  'expected_away_goals',
  'proba_over_2_5',
  'proba_btts_yes',
  'odd_over_2_5',
  'odd_under_2_5',
  'odd_btts_yes',
  'odd_btts_no',
  'edge_over_2_5',
  'edge_under_2_5',
  'edge_btts_yes',
  'edge_btts_no',
  'top_score',
];

function row(
  matchId: number,
  lh: number,
  la: number,
  odds: Partial<goals.MarketsRow> = {},
): goals.MarketsRow {
  return {
    match_id: matchId,
    expected_home_goals: lh,
    expected_away_goals: la,
    rho: -0.06,
    model_stage: 'champion',
    model_run_id: 'a'.repeat(32),
    training_cutoff: new Date('2023-06-01T00:00:00Z'),
    odd_over25: null,
    odd_under25: null,
    odd_btts_yes: null,
    odd_btts_no: null,
    ...odds,
  };
}

async function putMarkets(h: Harness, rows: goals.MarketsRow[]): Promise<void> {
  await publishArtifacts(h.deps, {
    markets: writeParquet(goals.MARKETS_COLUMNS, rows as unknown as Record<string, unknown>[]),
  });
}

let h: Harness | undefined;
after(async () => {
  await h?.cleanup();
});

test('cards carry the goals markets of the markets file (null without a row) and follow its changes', async () => {
  h = await harness({ VIEW_REFRESH_MS: '50' });
  await putPredictions(h.deps, predictionRows({ n: 10 }));
  await putMarkets(h, [
    row(1, 1.92, 0.88, { odd_over25: 1.72, odd_under25: 2.12, odd_btts_yes: 1.85, odd_btts_no: 1.95 }),
    row(2, 0.7, 2.3),
  ]);
  await h.views.start();
  const cards = () =>
    new Map(
      (JSON.parse(identityOf(h!.views.cardsBody()).toString()) as Record<string, unknown>[]).map((c) => [
        c.match_id as number,
        c,
      ]),
    );

  const c1 = cards().get(1)!;
  const m = goals.marketsFromMatrix(goals.scoreMatrix(1.92, 0.88, -0.06), 5);
  assert.equal(c1.expected_home_goals, 1.92);
  assert.equal(c1.expected_away_goals, 0.88);
  assert.ok(Math.abs((c1.proba_over_2_5 as number) - m.over['2.5']) < 1e-12);
  assert.ok(Math.abs((c1.proba_btts_yes as number) - m.btts_yes) < 1e-12);
  assert.equal(c1.odd_over_2_5, 1.72);
  assert.equal(c1.odd_btts_no, 1.95);
  // Value is computed only against a price the prediction used (its odds snapshot at the prediction
  // time, test/analytics/exports.test.ts); this run has no odds file, so the card shows none.
  for (const k of ['edge_over_2_5', 'edge_under_2_5', 'edge_btts_yes', 'edge_btts_no', 'used_odd_over_2_5'])
    assert.equal(c1[k], null, k);
  assert.equal(c1.top_score, `${m.top_scores[0].home}-${m.top_scores[0].away}`);

  // A row without prices: probabilities yes, odds and edges null; the away side is the likelier scorer.
  const c2 = cards().get(2)!;
  assert.equal(c2.odd_over_2_5, null);
  assert.equal(c2.edge_btts_yes, null);
  assert.equal(typeof c2.proba_btts_yes, 'number');
  const [home, away] = String(c2.top_score).split('-').map(Number);
  assert.ok(away > home, `top score ${c2.top_score}`);

  // No markets row: every goals field is present and null (additive, nullable).
  const c3 = cards().get(3)!;
  for (const f of GOALS_FIELDS) assert.equal(c3[f], null, f);

  // A new markets file reaches the cards without a predictions change.
  await putMarkets(h, [row(3, 2.5, 1.5)]);
  await until(() => cards().get(3)?.expected_home_goals === 2.5, 5000, 'cards to pick up new markets');
  assert.equal(cards().get(1)?.expected_home_goals, null);

  // A run without the file nulls the fields again.
  await publishArtifacts(h.deps, {}, { drop: ['markets'] });
  await until(() => cards().get(3)?.expected_home_goals === null, 5000, 'markets removal');
});
