import assert from 'node:assert/strict';
import { test } from 'node:test';
import v8 from 'node:v8';
import { buildFeatureRows, featureRowsFromParquet, featureRowsToParquet } from '../../src/features/index.js';
import { type ParquetColumn, readParquet, writeParquet } from '../../src/storage/index.js';
import { syntheticLeague } from './league-fixture.js';

// V8's own answer to "is this object in the compact (fast-properties) layout": a row that falls into
// dictionary mode costs ~3× the memory, which is what a pipeline run over many matches is bound by.
v8.setFlagsFromString('--allow-natives-syntax');
const hasFastProperties = new Function('o', 'return %HasFastProperties(o)') as (o: object) => boolean;

test('the check itself: an object given 60 computed keys one at a time is in dictionary mode', () => {
  const slow: Record<string, number> = {};
  for (let i = 0; i < 60; i++) slow[`column_${i}`] = i + 0.5;
  assert.equal(hasFastProperties(slow), false);
  assert.equal(hasFastProperties({ a: 1 }), true);
});

test('feature rows, built or read back from Parquet, keep the compact layout', async () => {
  const { matches, odds } = syntheticLeague();
  const rows = buildFeatureRows(matches, odds, new Date('2030-01-01T00:00:00Z'));
  assert.ok(rows.length > 100);
  for (const r of [rows[0], rows[rows.length - 1]]) assert.ok(hasFastProperties(r));
  const back = await featureRowsFromParquet(featureRowsToParquet(rows));
  for (const r of [back[0], back[back.length - 1]]) assert.ok(hasFastProperties(r));
  assert.deepEqual(Object.keys(back[0]), Object.keys(rows[0]));
});

test('readParquet: rows of a wide file are compact, with the columns in file order and every value', async () => {
  const columns: ParquetColumn[] = [
    { name: 'id', type: 'int64' },
    { name: 'at', type: 'timestamp' },
    ...Array.from({ length: 60 }, (_, i) => ({ name: `v${i}`, type: 'double' as const })),
    { name: 'note', type: 'string' },
  ];
  const input = Array.from({ length: 300 }, (_, r) => {
    const row: Record<string, unknown> = { id: r, at: new Date(r * 1000), note: r % 3 ? `n${r}` : null };
    for (let i = 0; i < 60; i++) row[`v${i}`] = (r + i) % 7 === 0 ? null : r * 0.25 + i;
    return row;
  });
  const rows = await readParquet(writeParquet(columns, input, { rowGroupSize: 128 }));
  assert.equal(rows.length, input.length);
  assert.ok(hasFastProperties(rows[0]) && hasFastProperties(rows[299]));
  assert.deepEqual(
    Object.keys(rows[0]),
    columns.map((c) => c.name),
  );
  for (let r = 0; r < input.length; r++) {
    for (const c of columns) assert.deepEqual(rows[r][c.name], input[r][c.name], `${c.name} of row ${r}`);
  }
});
