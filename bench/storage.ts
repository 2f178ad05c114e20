// Storage figures: Parquet write/read of a features-sized table, and folder-store put/get latency.
// Run: node --import tsx bench/storage.ts
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { FsObjectStore } from '../src/storage/fs-object-store.js';
import { type ParquetColumn, readParquet, writeParquet } from '../src/storage/index.js';

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
}

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
  // Rounded like real features (a few decimals), which compresses as real files do.
  for (let f = 0; f < 31; f++)
    r[`f${f}`] = f % 7 === 0 && i % 11 === 0 ? null : Math.round(Math.sin(i * (f + 1)) * 1e4) / 1e4;
  return r;
});

const writes: number[] = [];
const reads: number[] = [];
const writeCpu: number[] = [];
const readCpu: number[] = [];
let size = 0;
for (let i = 0; i < 5; i++) {
  let c = process.cpuUsage();
  const t0 = performance.now();
  const buf = writeParquet(columns, rows);
  writes.push(performance.now() - t0);
  let d = process.cpuUsage(c);
  writeCpu.push((d.user + d.system) / 1000);
  size = buf.length;
  c = process.cpuUsage();
  const t1 = performance.now();
  await readParquet(buf);
  reads.push(performance.now() - t1);
  d = process.cpuUsage(c);
  readCpu.push((d.user + d.system) / 1000);
}
console.log(
  `cpu: ${cpus()[0]?.model} ×${cpus().length}, node ${process.version}, load ${loadavg()[0]?.toFixed(1)}`,
);
console.log(
  `parquet 40,000 rows × 40 columns: write median ${median(writes).toFixed(0)} ms (CPU ${median(writeCpu).toFixed(0)} ms), read median ${median(reads).toFixed(0)} ms (CPU ${median(readCpu).toFixed(0)} ms), ${(size / 1e6).toFixed(2)} MB`,
);

const dir = await mkdtemp(path.join(tmpdir(), 'mc-bench-'));
try {
  const store = new FsObjectStore({ root: dir });
  for (const [label, bytes] of [
    ['1 KB', 1024],
    ['1 MB', 1 << 20],
  ] as const) {
    const body = Buffer.alloc(bytes, 7);
    const puts: number[] = [];
    const gets: number[] = [];
    for (let i = 0; i < 50; i++) {
      let t = performance.now();
      await store.put('features', 'bench.bin', body);
      puts.push(performance.now() - t);
      t = performance.now();
      await store.get('features', 'bench.bin');
      gets.push(performance.now() - t);
    }
    console.log(
      `fs store ${label}: put median ${median(puts).toFixed(2)} ms (fsync on), get ${median(gets).toFixed(2)} ms`,
    );
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
