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
  }
});

test('a field no row quotes holds no column, and a merge that quotes it later keeps every value', async () => {
  const price = (i: number) => 1.5 + i / 100;
  // 1X2 only, as the synthetic league and older sources give: the goals fields are null everywhere.
  const base = Array.from({ length: 300 }, (_, i) => {
    const row: Record<string, unknown> = { match_id: i + 1, source: 'synthetic' };
    for (const f of ODDS_PRICE_FIELDS) row[f] = f.endsWith('_home') ? price(i) : null;
    for (const f of ODDS_TIME_FIELDS) row[f] = null;
    return row;
  });
  const read = await OddsColumns.fromParquet(writeParquet(ODDS_COLUMNS, base));
  const held = ODDS_PRICE_FIELDS.filter((_, k) => read.prices[k] !== null);
  assert.deepEqual(held, ['odd_home', 'open_home', 'close_home']);
  assert.ok(read.times.every((c) => c === null));
  // A late match quotes BTTS for the first time: built row by row from a capacity of 1, that column
  // appears at its last row and every earlier row of it reads null.
  const late = {
    ...base[0],
    match_id: 301,
    odd_btts_yes: 1.8,
    odds_observed_at: new Date(Date.UTC(2024, 1, 1)),
  };
  const incoming = OddsColumns.from(
    [...read.values(), (await decodeOdds(writeParquet(ODDS_COLUMNS, [late])))[0]!],
    1,
  );
  const merged = OddsColumns.merge(read, incoming)!;
  assert.equal(merged.size, 301);
  assert.equal(merged.get(301)?.odd_btts_yes, 1.8);
  assert.equal(merged.get(300)?.odd_btts_yes, null);
  assert.equal(merged.get(300)?.odd_home, price(299));
  const again = await OddsColumns.fromParquet(merged.encode());
  assert.deepEqual([...again.values()], [...merged.values()]);
});
