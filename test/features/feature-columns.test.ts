// The columnar feature table (what a worker holds per published run) gives back, for every match,
// the row `featureRowsFromParquet` reads: the same values, nulls, dates and strings, whatever the row
// groups, and absent columns read the same way.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  buildFeatureRows,
  FeatureColumns,
  featureRowsFromParquet,
  featureRowsToParquet,
} from '../../src/features/index.js';
import { FEATURE_PARQUET_COLUMNS } from '../../src/features/parquet.js';
import { writeParquet } from '../../src/storage/index.js';
import { syntheticLeague } from './league-fixture.js';

function rowsOf() {
  const { matches, odds } = syntheticLeague({ seed: 11, regions: 2, seasons: 2 });
  // As of the middle of the data: later matches are fixtures (no label), every 7th has no odds.
  const times = matches.map((m) => m.startTimeUtc.getTime()).sort((a, b) => a - b);
  const asOf = new Date(times[Math.floor(times.length / 2)]);
  return buildFeatureRows(matches, odds, asOf);
}

async function assertSameRows(buf: Buffer): Promise<void> {
  const objects = await featureRowsFromParquet(buf);
  const columns = await FeatureColumns.fromParquet(buf);
  assert.equal(columns.size, new Set(objects.map((r) => r.match_id)).size);
  for (const row of objects) {
    assert.deepEqual(columns.get(row.match_id), { ...row }, `match ${row.match_id}`);
    assert.equal(columns.value(row.match_id, 'home_team_name'), row.home_team_name);
  }
  assert.deepEqual(
    [...columns.keys()],
    objects.map((r) => r.match_id),
  );
  assert.equal(columns.get(-1), undefined);
  assert.equal(columns.has(objects[0].match_id), true);
}

test('every row of the columnar table equals the object row read from the same file', async () => {
  const rows = rowsOf();
  assert.ok(rows.some((r) => r.label === null) && rows.some((r) => r.label !== null));
  assert.ok(rows.some((r) => r.mkt_home === null) && rows.some((r) => r.odds_observed_at === null));
  await assertSameRows(featureRowsToParquet(rows));
});

test('several row groups and columns absent from the file read as the object rows read them', async () => {
  const rows = rowsOf() as unknown as Record<string, unknown>[];
  await assertSameRows(writeParquet(FEATURE_PARQUET_COLUMNS, rows, { rowGroupSize: 97 }));
  const dropped = new Set(['prediction_time', 'odds_observed_at', 'label', 'season', 'mkt_home']);
  const older = FEATURE_PARQUET_COLUMNS.filter((c) => !dropped.has(c.name));
  await assertSameRows(writeParquet(older, rows));
});
