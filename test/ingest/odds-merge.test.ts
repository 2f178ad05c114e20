// Merging odds records into raw-data/odds.parquet as columns writes what merging them as record
// objects wrote (byte for byte): nulls, goals markets, several sources, a match replaced, a match
// added, an unchanged match kept as it was, rows sorted by match id; and nothing when nothing changes.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { KEYS, ODDS_PRICE_FIELDS, ODDS_TIME_FIELDS, type OddsRecord } from '../../src/domain/index.js';
import { ODDS_COLUMNS, OddsColumns } from '../../src/ingest/odds-columns.js';
import { decodeOdds, mergeOddsFile } from '../../src/ingest/odds-file.js';
import { FsObjectStore } from '../../src/storage/fs-object-store.js';
import { writeParquet } from '../../src/storage/index.js';
import { rng } from '../features/league-fixture.js';

const SOURCES = ['football-csv', 'football-data.co.uk:Avg', 'synthetic', ''];

/** A record with some prices and times missing, goals markets on some matches only. */
function record(id: number, r: () => number): OddsRecord {
  const rec: Record<string, unknown> = { match_id: id, source: SOURCES[Math.floor(r() * SOURCES.length)] };
  const goals = r() < 0.5;
  ODDS_PRICE_FIELDS.forEach((f, k) => {
    rec[f] = (k >= 9 && !goals) || r() < 0.15 ? null : 1 + Math.round(r() * 900) / 100;
  });
  for (const f of ODDS_TIME_FIELDS)
    rec[f] = r() < 0.25 ? null : new Date(Date.UTC(2024, 0, 1) + Math.floor(r() * 1e6) * 60_000);
  return rec as unknown as OddsRecord;
}

/** The merge as it was done on records: a Map by match id, later records replacing, sorted, written from rows. */
function recordMerge(base: readonly OddsRecord[], records: readonly OddsRecord[]): Buffer {
  const byId = new Map(base.map((r) => [r.match_id, r]));
  for (const r of records) byId.set(r.match_id, r);
  const rows = [...byId.values()].sort((a, b) => a.match_id - b.match_id);
  return writeParquet(ODDS_COLUMNS, rows as unknown as Record<string, unknown>[]);
}

async function withStore(fn: (store: FsObjectStore) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'mc-odds-merge-'));
  const store = new FsObjectStore({
    root: path.join(dir, 'objects'),
    publicBaseUrl: 'http://localhost:8000/',
    urlSigningSecret: 'k'.repeat(64),
  });
  try {
    await fn(store);
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

async function stored(store: FsObjectStore): Promise<Buffer> {
  const obj = await store.get(KEYS.odds.bucket, KEYS.odds.key);
  assert.ok(obj, 'the odds file is written');
  return obj.body;
}

test('the column merge writes the file the record merge wrote', async () => {
  await withStore(async (store) => {
    const r = rng(11);
    // Ids out of order in the records given: the file is sorted by match id all the same.
    const first = Array.from({ length: 300 }, (_, i) => record(5000 - i * 7, r));
    assert.deepEqual(await mergeOddsFile(store, first), { rows: 300, written: true });
    const firstFile = await stored(store);
    assert.ok(firstFile.equals(recordMerge([], first)), 'the first write: the bytes of the record merge');
    const before = await decodeOdds(firstFile);
    assert.ok(before.some((x) => x.odd_over25 === null) && before.some((x) => x.odd_over25 !== null));
    assert.ok(before.some((x) => x.open_observed_at === null));
    assert.ok(new Set(before.map((x) => x.source)).size > 2);

    // Replace one match, add two, repeat one as it is: the others are kept.
    const replaced = { ...before[10], odd_home: (before[10].odd_home ?? 2) + 0.5, source: 'odds-api' };
    const unchanged = { ...before[20] };
    const added = [record(1, r), record(9999, r)];
    const incoming = [added[1], replaced, unchanged, added[0]];
    const merged = await mergeOddsFile(store, incoming);
    assert.deepEqual(merged, { rows: 302, written: true });
    const file = await stored(store);
    assert.ok(file.equals(recordMerge(before, incoming)), 'byte for byte the record merge');

    const after = await decodeOdds(file);
    assert.deepEqual(
      after.map((x) => x.match_id),
      [...before.map((x) => x.match_id), 1, 9999].sort((a, b) => a - b),
    );
    const byId = new Map(after.map((x) => [x.match_id, x]));
    assert.deepEqual(byId.get(replaced.match_id), replaced, 'the replaced match has its new values');
    assert.deepEqual(byId.get(before[11].match_id), before[11], 'a match not in the merge keeps its row');
    assert.deepEqual(byId.get(9999), added[1]);
    assert.deepEqual(byId.get(1), added[0]);
  });
});

test('a merge that changes nothing writes nothing; the last record of a match wins', async () => {
  await withStore(async (store) => {
    const r = rng(12);
    const records = Array.from({ length: 50 }, (_, i) => record(100 + i, r));
    await mergeOddsFile(store, records);
    const etag = (await store.head(KEYS.odds.bucket, KEYS.odds.key))?.etag;
    const again = await decodeOdds(await stored(store));
    assert.deepEqual(await mergeOddsFile(store, again.slice(5, 25)), { rows: 50, written: false });
    assert.deepEqual(await mergeOddsFile(store, OddsColumns.from(again)), { rows: 50, written: false });
    assert.equal((await store.head(KEYS.odds.bucket, KEYS.odds.key))?.etag, etag, 'the file is untouched');
    assert.deepEqual(await mergeOddsFile(store, []), { rows: 50, written: false });

    // A price gone (null where there was one) is a change of its own.
    const k = again.findIndex((x) => x.close_home !== null);
    const gone = { ...again[k], close_home: null };
    assert.deepEqual(await mergeOddsFile(store, [gone]), { rows: 50, written: true });
    assert.equal((await decodeOdds(await stored(store)))[k].close_home, null);
    assert.deepEqual(await mergeOddsFile(store, [again[k]]), { rows: 50, written: true }, 'and back');

    // Twice the same match in one merge: the later record is the one written.
    const a = { ...again[3], odd_draw: 7.5 };
    const b = { ...again[3], odd_draw: 8.5 };
    assert.deepEqual(await mergeOddsFile(store, [a, b]), { rows: 50, written: true });
    const file = await stored(store);
    assert.ok(file.equals(recordMerge(again, [a, b])));
    assert.equal((await decodeOdds(file)).find((x) => x.match_id === a.match_id)?.odd_draw, 8.5);
  });
});

test('no file and nothing to merge: nothing written', async () => {
  await withStore(async (store) => {
    assert.deepEqual(await mergeOddsFile(store, []), { rows: 0, written: false });
    assert.equal(await store.head(KEYS.odds.bucket, KEYS.odds.key), null);
  });
});
