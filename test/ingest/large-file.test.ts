// One CSV holding the whole real data set (all 8 leagues concatenated): ~37k rows, >100k odds
// observations. Collecting them with `push(...rows)` once overflowed the stack at this size.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ingestPath } from '../../src/ingest/index.js';
import { type IngestEnv, ingestEnv } from './helpers.js';

// The real data set: FOOTBALL_DATA_DIR, as for the benchmarks (bench/football-data.ts).
const DATA = process.env.FOOTBALL_DATA_DIR ?? '/work/shared/data/football';
const skip = !existsSync(DATA) && `the real data (FOOTBALL_DATA_DIR=${DATA}) is not on this machine`;

describe('ingest of one very large file', { skip }, () => {
  let env: IngestEnv;
  let file: string;
  before(async () => {
    env = await ingestEnv();
    const csvs = readdirSync(DATA)
      .filter((f) => f.endsWith('.csv'))
      .sort();
    const lines: string[] = [];
    csvs.forEach((f, i) => {
      const rows = readFileSync(path.join(DATA, f), 'utf8').trimEnd().split(/\r?\n/);
      for (const line of i === 0 ? rows : rows.slice(1)) lines.push(line);
    });
    file = path.join(env.config.dataDir, 'all-leagues.csv');
    writeFileSync(file, `${lines.join('\n')}\n`);
  });
  after(async () => env?.cleanup());

  test('loads every row and its odds observations without overflowing the stack', async () => {
    const report = await ingestPath(file, env);
    assert.equal(report.files, 1);
    assert.ok(report.inserted > 37_000, `inserted ${report.inserted}`);
    assert.ok(report.observationsRead > 100_000, `observations ${report.observationsRead}`);
  });
});
