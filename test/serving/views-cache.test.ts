import assert from 'node:assert/strict';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, test } from 'node:test';
import { oddsRows, predictionRows, putOdds, putPredictions } from '../../bench/precomputed-fixtures.js';
import { createServingViews } from '../../src/serving/index.js';
import { buildCodeFingerprint, ViewsCache } from '../../src/serving/views-cache.js';
import { type Harness, harness, until } from './harness.js';

const open: Harness[] = [];
after(async () => {
  await Promise.all(open.map((h) => h.cleanup()));
});

async function cacheFiles(dir: string): Promise<string[]> {
  return (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.bin'));
}

test('a restart serves the cached build of the published files, byte for byte, without building', async () => {
  const h = await harness();
  open.push(h);
  const cacheDir = path.join(h.dir, 'cache', 'views');
  const rows = predictionRows({ n: 200 });
  await putPredictions(h.deps, rows);
  await putOdds(h.deps, oddsRows(rows.map((r) => r.match_id as number)));
  const first = createServingViews(h.deps, h.config, h.log, { cacheDir, cacheWriteDelayMs: 0 });
  await first.start();
  await until(async () => (await cacheFiles(cacheDir)).length === 1, 5000, 'the cache to be written');
  const bodies = (v: typeof first) => ({
    bulk: v.predictionsBody(),
    cards: v.cardsBody(),
    odds: v.oddsBody(),
    one: v.precomputedJson(rows[7].match_id as number),
  });
  const want = bodies(first);
  await first.close();

  // Every build of this builder fails: what serves can only come from the cache.
  const failing = new URL('./failing-builder-thread.ts', import.meta.url);
  const second = createServingViews(h.deps, h.config, h.log, { cacheDir, builderEntry: failing });
  await second.start();
  const got = bodies(second);
  assert.deepEqual(got.one, want.one);
  for (const k of ['bulk', 'cards', 'odds'] as const) {
    assert.deepEqual(got[k].etags, want[k].etags, `${k} etags`);
    assert.ok(got[k].gzip.equals(want[k].gzip), `${k} gzip bytes`);
    assert.ok(got[k].br.equals(want[k].br), `${k} br bytes`);
  }
  assert.equal(second.status().predictions.rows, 200);
  await second.close();

  // A changed byte fails the entry's checksum: the entry is ignored and the views are built.
  const [file] = await cacheFiles(cacheDir);
  const bytes = await readFile(path.join(cacheDir, file));
  bytes[bytes.length - 3] ^= 0xff;
  await writeFile(path.join(cacheDir, file), bytes);
  const third = createServingViews(h.deps, h.config, h.log, { cacheDir, builderEntry: failing });
  await third.start();
  assert.throws(() => third.predictionsBody(), /predictions/i, 'nothing served from a corrupt entry');
  await third.close();

  // Other published files (a new run) are another key: built, served, and cached in place of the old.
  const next = predictionRows({ n: 50, runId: 'run-0002' });
  await putPredictions(h.deps, next);
  const fourth = createServingViews(h.deps, h.config, h.log, { cacheDir, cacheWriteDelayMs: 0 });
  await fourth.start();
  assert.equal(fourth.status().predictions.rows, 50);
  await until(
    async () => {
      const files = await cacheFiles(cacheDir);
      return files.length === 1 && files[0] !== file;
    },
    5000,
    'the new entry to replace the old one',
  );
  await fourth.close();
});

test('an entry is named by the files, the settings and the code that built it', () => {
  const k = {
    predictions: 'predictions/runs/a/predictions.parquet#aa',
    odds: null,
    markets: null,
    bookmakerUrlTemplate: '',
    identityMaxBytes: null,
  };
  const code = buildCodeFingerprint();
  assert.match(code, /^[0-9a-f]{64}$/);
  const base = ViewsCache.key(k, code);
  assert.equal(ViewsCache.key(k), base, 'the running code by default');
  assert.notEqual(ViewsCache.key(k, `${code}x`), base, 'other code, other entry');
  assert.notEqual(ViewsCache.key({ ...k, odds: 'raw-data/runs/a/odds.parquet#bb' }, code), base);
  assert.notEqual(ViewsCache.key({ ...k, bookmakerUrlTemplate: 'https://x/{match_id}' }, code), base);
  assert.notEqual(ViewsCache.key({ ...k, identityMaxBytes: 1024 }, code), base);
});
