// The columnar odds records (what ingest merges and a worker holds for live goals markets) give back, for every match, the
// record `decodeOdds` reads from the same file (prices, nulls, times, source), whether built from the
// decoded records or read from the file column by column.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ODDS_PRICE_FIELDS, ODDS_TIME_FIELDS } from '../../src/domain/index.js';
import { decodeOdds } from '../../src/ingest/index.js';
import { ODDS_COLUMNS, OddsColumns } from '../../src/ingest/odds-columns.js';
import { writeParquet } from '../../src/storage/index.js';
import { rng } from '../features/league-fixture.js';

test('every record of the columnar odds equals the record decoded from the same file', async () => {
  const r = rng(5);
  const rows = Array.from({ length: 500 }, (_, i) => {
    const row: Record<string, unknown> = { match_id: 1000 + i, source: ['football-csv', 'synthetic'][i % 2] };
    // Some prices and times missing, as in files of older or partial sources.
    for (const f of ODDS_PRICE_FIELDS) row[f] = r() < 0.2 ? null : 1 + Math.round(r() * 900) / 100;
    for (const f of ODDS_TIME_FIELDS)
      row[f] = r() < 0.3 ? null : new Date(Date.UTC(2024, 0, 1) + Math.floor(r() * 1e6) * 60_000);
    return row;
  });
  const file = writeParquet(ODDS_COLUMNS, rows, { rowGroupSize: 128 });
  const records = await decodeOdds(file);
  assert.ok(records.some((x) => (x as unknown as Record<string, unknown>)[ODDS_PRICE_FIELDS[0]] === null));
  for (const columns of [OddsColumns.from(records), await OddsColumns.fromParquet(file)]) {
    assert.equal(columns.size, records.length);
    for (const rec of records) assert.deepEqual(columns.get(rec.match_id), rec, `match ${rec.match_id}`);
    assert.deepEqual([...columns.values()], records);
    assert.equal(columns.get(1), undefined);
    assert.equal(columns.has(1000), true);
  }
});
