/**
 * What both precomputed benchmarks (bench/precomputed.ts, bench/precomputed-instructions.ts) set up:
 * a data folder with `rows` predictions and their odds, and the compiled server of a checkout.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseConfig } from '../src/config.js';
import { openDatabase } from '../src/db/index.js';
import { createObjectStore } from '../src/storage/index.js';
import { oddsRows, predictionRows, putOdds, putPredictions } from './precomputed-fixtures.js';

/**
 * Publishes `rows` synthetic predictions and their odds in the store under `dataDir`, with their
 * metadata in the embedded database there (or in `databaseUrl`'s).
 */
export async function writePrecomputedData(
  dataDir: string,
  rows: number,
  databaseUrl?: string,
): Promise<void> {
  const config = parseConfig({
    DATA_DIR: dataDir,
    URL_SIGNING_SECRET: 'bench-secret-bench-secret-bench-secret',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  });
  const store = createObjectStore(config);
  const db = await openDatabase(config);
  try {
    const predictions = predictionRows({ n: rows });
    await putPredictions({ db, store }, predictions);
    await putOdds({ db, store }, oddsRows(predictions.map((r) => r.match_id as number)));
  } finally {
    await db.close();
    await store.close();
  }
}

/**
 * Bundles `<root>/bench/precomputed-server.ts` (root: a checkout of this repository) with esbuild and
 * returns the file. It lands two levels under the root, like src/api/*.ts, so that bare imports
 * resolve from the checkout's node_modules and package.json is found where the sources look for it;
 * the views' builder thread is bundled beside it. The caller removes its folder at the end.
 */
export async function bundlePrecomputedServer(root: string, tag: string): Promise<string> {
  const { build } = await import('esbuild');
  const outfile = path.join(root, 'var', `bench-${process.pid}-${tag}`, 'precomputed-server.mjs');
  const options = {
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
  } as const;
  await build({ ...options, entryPoints: [path.join(root, 'bench', 'precomputed-server.ts')], outfile });
  // The views start their builder thread from the module beside their own: beside the bundle here.
  const thread = path.join(root, 'src', 'serving', 'view-builder-thread.ts');
  if (existsSync(thread)) {
    await build({
      ...options,
      entryPoints: [thread],
      outfile: path.join(path.dirname(outfile), 'view-builder-thread.js'),
    });
  }
  return outfile;
}
