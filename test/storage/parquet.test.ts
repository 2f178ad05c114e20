import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { parquetMetadata } from 'hyparquet';
import {
  type ParquetColumn,
  parquetFile,
  readColumnByColumn,
  readParquet,
  writeParquet,
  writeParquetColumns,
} from '../../src/storage/index.js';

const COLUMNS: ParquetColumn[] = [
  { name: 'match_id', type: 'int64' },
  { name: 'region_id', type: 'int32' },
  { name: 'proba', type: 'double' },
  { name: 'is_future', type: 'boolean' },
  { name: 'team', type: 'string' },
  { name: 'start_time_utc', type: 'timestamp' },
];

const ROWS = [
  {
    match_id: 9_007_199_254_740_991,
    region_id: -5,
    proba: 0.125,
    is_future: true,
    team: 'Bayern München ⚽',
    start_time_utc: new Date('2024-03-01T19:45:00.123Z'),
  },
  { match_id: 2, region_id: null, proba: null, is_future: null, team: null, start_time_utc: null },
  {
    match_id: null,
    region_id: 2147483647,
    proba: -1e-300,
    is_future: false,
    team: '',
    start_time_utc: new Date(0),
  },
  // missing fields are nulls too
  { match_id: 4 },
];

test('round trip keeps types, values and nulls', async () => {
  const buf = writeParquet(COLUMNS, ROWS);
  const back = await readParquet(buf);
  assert.equal(back.length, 4);
  const expected = ROWS.map((r) =>
    Object.fromEntries(COLUMNS.map((c) => [c.name, (r as Record<string, unknown>)[c.name] ?? null])),
  );
  assert.deepEqual(back, expected);
  assert.equal(typeof back[0]?.match_id, 'number');
  assert.ok(back[0]?.start_time_utc instanceof Date);
});

test('a Buffer that is a view into a larger pool reads correctly', async () => {
  const buf = writeParquet(COLUMNS, ROWS);
  const pooled = Buffer.concat([Buffer.from('xxxx'), buf]).subarray(4);
  assert.deepEqual(await readParquet(pooled), await readParquet(buf));
});

test('empty row set writes a readable file', async () => {
  const buf = writeParquet(COLUMNS, []);
  assert.deepEqual(await readParquet(buf), []);
});

test('values that do not fit the column type are rejected', () => {
  assert.throws(() => writeParquet([{ name: 'a', type: 'int32' }], [{ a: 1.5 }]), TypeError);
  assert.throws(() => writeParquet([{ name: 'a', type: 'int32' }], [{ a: 2 ** 31 }]), TypeError);
  assert.throws(() => writeParquet([{ name: 'a', type: 'int64' }], [{ a: 2 ** 60 }]), TypeError);
  assert.throws(() => writeParquet([{ name: 'a', type: 'string' }], [{ a: 5 }]), TypeError);
  assert.throws(() => writeParquet([{ name: 'a', type: 'timestamp' }], [{ a: new Date('nope') }]), TypeError);
  assert.throws(() => writeParquet([{ name: 'a', type: 'boolean' }], [{ a: 'true' }]), TypeError);
  assert.throws(
    () =>
      writeParquet(
        [
          { name: 'a', type: 'double' },
          { name: 'a', type: 'double' },
        ],
        [],
      ),
    TypeError,
  );
});

test('columns are written one row group at a time, with the failing row named', async () => {
  const n = 2_500;
  const reads: number[] = [];
  const cols: ParquetColumn[] = [
    { name: 'id', type: 'int64' },
    { name: 'x', type: 'double' },
  ];
  const cell = (name: string) => (i: number) => {
    reads.push(i);
    return name === 'id' ? i : i % 7 === 0 ? null : i / 2;
  };
  const buf = writeParquetColumns(cols, n, cell, { rowGroupSize: 1_000 });
  assert.equal(reads.length, 2 * n, 'every cell read once');
  assert.equal(parquetMetadata(parquetFile(buf)).row_groups.length, 3);
  const back = await readParquet(buf);
  assert.deepEqual(back[2_100], { id: 2_100, x: null });
  assert.deepEqual(back[2_101], { id: 2_101, x: 1_050.5 });
  // The same file from rows: byte for byte.
  assert.deepEqual(writeParquet(cols, back, { rowGroupSize: 1_000 }), buf);
  assert.throws(
    () =>
      writeParquetColumns(cols, n, (name) => (i) => (name === 'x' && i === 2_345 ? 'bad' : i), {
        rowGroupSize: 1_000,
      }),
    /column "x" \(double\), row 2345: unsupported value bad/,
  );
});

test('readColumnByColumn hands over one column at a time and skips absent names', async () => {
  const buf = writeParquet(COLUMNS, ROWS);
  const file = parquetFile(buf);
  const seen: string[] = [];
  const values = new Map<string, unknown[]>();
  await readColumnByColumn(file, parquetMetadata(file), ['team', 'nope', 'proba'], (chunk) => {
    seen.push(chunk.columnName);
    values.set(chunk.columnName, [...(values.get(chunk.columnName) ?? []), ...Array.from(chunk.columnData)]);
  });
  assert.deepEqual(seen, ['team', 'proba']);
  assert.deepEqual(
    values.get('team'),
    ROWS.map((r) => r.team ?? null),
  );
  assert.deepEqual(
    values.get('proba'),
    ROWS.map((r) => r.proba ?? null),
  );
});

test('DuckDB reads the file with real column types and values', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'mc-parquet-'));
  try {
    const file = path.join(dir, 'x.parquet');
    await writeFile(file, writeParquet(COLUMNS, ROWS));
    const instance = await DuckDBInstance.create(':memory:');
    const conn = await instance.connect();
    try {
      await conn.run("SET TimeZone = 'UTC'");
      const described = await conn.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${file}')`);
      const types = Object.fromEntries(
        described.getRowObjectsJS().map((r) => [String(r.column_name), String(r.column_type)]),
      );
      assert.deepEqual(types, {
        match_id: 'BIGINT',
        region_id: 'INTEGER',
        proba: 'DOUBLE',
        is_future: 'BOOLEAN',
        team: 'VARCHAR',
        start_time_utc: 'TIMESTAMP WITH TIME ZONE',
      });
      const reader = await conn.runAndReadAll(
        `SELECT match_id::VARCHAR AS id, region_id, proba, is_future, team,
                epoch_ms(start_time_utc) AS ms, strftime(start_time_utc, '%Y-%m-%d %H:%M:%S') AS ts
         FROM read_parquet('${file}')`,
      );
      const rows = reader.getRowObjectsJS();
      assert.deepEqual(rows[0], {
        id: '9007199254740991',
        region_id: -5,
        proba: 0.125,
        is_future: true,
        team: 'Bayern München ⚽',
        ms: 1709322300123n,
        ts: '2024-03-01 19:45:00',
      });
      assert.equal(rows[1]?.region_id, null);
      assert.equal(rows[1]?.ms, null);
      assert.equal(rows[2]?.id, null);
      assert.equal(rows[2]?.team, '');
      assert.equal(rows[3]?.id, '4');
    } finally {
      conn.closeSync();
      instance.closeSync();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('40k rows × 40 columns write in well under a second', async () => {
  const columns: ParquetColumn[] = [
    { name: 'match_id', type: 'int64' },
    { name: 'start_time_utc', type: 'timestamp' },
    { name: 'region_id', type: 'int32' },
    { name: 'season', type: 'string' },
    { name: 'home_team_name', type: 'string' },
    { name: 'away_team_name', type: 'string' },
    { name: 'label', type: 'int32' },
    { name: 'is_future', type: 'boolean' },
    ...Array.from({ length: 31 }, (_, i) => ({ name: `f${i}`, type: 'double' as const })),
    { name: 'as_of', type: 'timestamp' },
  ];
  const asOf = new Date();
  const rows = Array.from({ length: 40_000 }, (_, i) => {
    const r: Record<string, unknown> = {
      match_id: 1_000_000 + i,
      start_time_utc: new Date(1_600_000_000_000 + i * 3_600_000),
      region_id: i % 8,
      season: `20${10 + (i % 12)}/${11 + (i % 12)}`,
      home_team_name: `Team ${i % 300}`,
      away_team_name: `Team ${(i * 7) % 300}`,
      label: i % 5 === 0 ? null : i % 3,
      is_future: i > 39_000,
      as_of: asOf,
    };
    for (let f = 0; f < 31; f++) r[`f${f}`] = f % 7 === 0 && i % 11 === 0 ? null : Math.sin(i * (f + 1));
    return r;
  });
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const buf = writeParquet(columns, rows);
  const writeMs = performance.now() - t0;
  const c1 = process.cpuUsage(c0);
  const writeCpuMs = (c1.user + c1.system) / 1000;
  const t1 = performance.now();
  const back = await readParquet(buf);
  const readMs = performance.now() - t1;
  console.log(
    `# parquet 40k×40: write ${writeMs.toFixed(0)} ms (cpu ${writeCpuMs.toFixed(0)} ms), read ${readMs.toFixed(0)} ms, ${(buf.length / 1e6).toFixed(2)} MB`,
  );
  assert.equal(back.length, 40_000);
  assert.deepEqual(back[123], rows[123]);
  // CPU time, not wall time: the machine is shared and wall time mostly measures the neighbours.
  // The target is < 1 s; the bound is generous so that a loaded CI box does not flake.
  assert.ok(writeCpuMs < 3000, `write used ${writeCpuMs} ms of CPU`);
});

test('files written by DuckDB read back as numbers, Dates and strings', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'mc-parquet-duck-'));
  try {
    const file = path.join(dir, 'duck.parquet');
    const instance = await DuckDBInstance.create(':memory:');
    const conn = await instance.connect();
    try {
      await conn.run(
        `COPY (SELECT 42::BIGINT AS id, 7::INTEGER AS n, 0.5::DOUBLE AS p, true AS b, 'x' AS s,
                      TIMESTAMPTZ '2024-05-01 12:00:00+00' AS ts, NULL::BIGINT AS missing)
         TO '${file}' (FORMAT parquet)`,
      );
    } finally {
      conn.closeSync();
      instance.closeSync();
    }
    const rows = await readParquet(await readFile(file));
    assert.deepEqual(rows, [
      { id: 42, n: 7, p: 0.5, b: true, s: 'x', ts: new Date('2024-05-01T12:00:00Z'), missing: null },
    ]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
