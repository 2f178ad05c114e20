// Ingest of the real data, timed per phase (parse, DB upsert, observations merge, odds summary).
// Usage: node --import tsx bench/ingest-speed.ts [data-folder]
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseConfig } from '../src/config.js';
import { openDatabase } from '../src/db/index.js';
import { parseCsvFile } from '../src/ingest/csv-file.js';
import { ingestPath, listCsvFiles } from '../src/ingest/index.js';
import { createObjectStore } from '../src/storage/index.js';

const source = process.argv[2] ?? '/work/shared/data/football';
const dir = await mkdtemp(path.join(tmpdir(), 'mc-bench-ingest-'));
const config = parseConfig({ DATA_DIR: dir, LOG_LEVEL: 'warn' });
try {
  let t = performance.now();
  let cpu = process.cpuUsage();
  let rows = 0;
  for (const f of await listCsvFiles(source)) rows += (await parseCsvFile(f)).matches.length;
  const c1 = process.cpuUsage(cpu);
  console.log(
    `parse only: ${rows} rows, ${(performance.now() - t).toFixed(0)} ms wall, ${((c1.user + c1.system) / 1000).toFixed(0)} ms CPU`,
  );
  const db = await openDatabase(config);
  const store = createObjectStore(config);
  for (const run of ['first (empty DB)', 'second (idempotent)']) {
    t = performance.now();
    cpu = process.cpuUsage();
    const r = await ingestPath(source, { db, store });
    const c = process.cpuUsage(cpu);
    console.log(
      `ingest ${run}: ${r.inserted} inserted, ${r.unchanged} unchanged, ${r.observations} observations, ` +
        `${r.oddsRejected.length} price sets rejected; ${(performance.now() - t).toFixed(0)} ms wall, ` +
        `${((c.user + c.system) / 1000).toFixed(0)} ms CPU (this process; PGlite runs in it)`,
    );
  }
  await db.close();
  await store.close();
} finally {
  await rm(dir, { recursive: true, force: true });
}
