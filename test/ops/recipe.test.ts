// The distributed recipe of docs/operations.md, step by step, with real processes and no container:
// PostgreSQL (a schema of its own via the URL's search_path), Redis (a queue of its own), a shared
// DATA_DIR folder as the object store, `matchcast bootstrap --synthetic`, two `matchcast serve` on
// distinct ports and one `matchcast worker`; then a live `GET /predict/{id}` of a future fixture is
// answered by the model. Every process is stopped (process groups) in `finally`. ~40 s.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import pg from 'pg';
import {
  API_KEY,
  CLUSTER_SKIP,
  clearQueue,
  dropSchema,
  freePort,
  get,
  killAll,
  MATCHCAST_BIN,
  PG_URL,
  type Proc,
  REDIS_URL,
  runCli,
  spawnProc,
  uniqueName,
  waitFor,
  waitForOutput,
} from '../helpers/cluster.js';

test('the documented recipe: bootstrap, 2 × serve, 1 × worker, a live prediction from the model', {
  skip: CLUSTER_SKIP,
  timeout: 240_000,
}, async () => {
  const schema = uniqueName('recipe');
  const queueName = uniqueName('recipe_q');
  const dataDir = mkdtempSync(path.join(tmpdir(), 'mc-recipe-'));
  const procs: Proc[] = [];
  const admin = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 5000 });
  await admin.connect();
  await admin.query(`CREATE SCHEMA "${schema}"`);
  await admin.end();
  try {
    const databaseUrl = new URL(PG_URL!);
    databaseUrl.searchParams.set('options', `-csearch_path=${schema}`);
    // The settings of the recipe: nothing else (no S3_*: DATA_DIR is the shared object store).
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? tmpdir(),
      DATABASE_URL: databaseUrl.toString(),
      REDIS_URL: REDIS_URL!,
      QUEUE_NAME: queueName,
      DATA_DIR: dataDir,
      API_KEY,
      LOG_LEVEL: 'info',
      NO_COLOR: '1',
    };

    // Step 1: bootstrap the empty stack.
    const boot = await runCli(['bootstrap', '--synthetic'], env, 180_000);
    assert.equal(boot.code, 0, boot.out.slice(-4000));
    assert.match(boot.stdout, /bootstrap finished/);
    assert.match(boot.stdout, /champion: version \d+/);

    // Step 2: N × serve on distinct ports, M × worker.
    const ports = [await freePort(), await freePort()];
    for (const port of ports)
      procs.push(
        spawnProc(`serve:${port}`, process.execPath, [MATCHCAST_BIN, 'serve'], {
          ...env,
          PORT: String(port),
          HOST: '127.0.0.1',
        }),
      );
    procs.push(spawnProc('worker', process.execPath, [MATCHCAST_BIN, 'worker'], env));
    await Promise.all([
      ...procs.slice(0, 2).map((p) => waitForOutput(p, /"msg":"listening"/, 60_000)),
      waitForOutput(procs[2]!, /worker started/, 60_000),
    ]);
    const bases = ports.map((p) => `http://127.0.0.1:${p}`);

    // Both APIs are ready (predictions loaded from the shared folder).
    for (const base of bases)
      await waitFor(`${base}/readyz`, async () => (await get(base, '/readyz')).status === 200, 30_000, 250);

    // Step 3: a future fixture, predicted live by the champion on a worker.
    const champion = JSON.parse(
      (await runCli(['registry', 'list', '--json'], { ...env, LOG_LEVEL: 'warn' })).stdout,
    ) as { aliases: Record<string, string>; versions: Array<{ version: string; run_id: string }> };
    const championRun = champion.versions.find((v) => v.version === champion.aliases.champion)?.run_id;
    assert.ok(championRun, 'a champion is registered');
    const rows = (await get(bases[0]!, '/predict/predictions/')).json as Array<{
      match_id: number;
      is_future: boolean | null;
    }>;
    const future = rows.filter((r) => r.is_future === true).map((r) => r.match_id);
    assert.ok(future.length >= 2, `future fixtures in the predictions: ${future.length}`);
    for (const [i, base] of bases.entries()) {
      const r = await get(base, `/predict/${future[i]}`);
      assert.equal(r.status, 200, r.text.slice(0, 300));
      assert.equal(r.json.cached, false, 'answered by the worker, not the cache');
      assert.equal(r.json.prediction_source ?? 'model', 'model');
      assert.equal(r.json.model_stage, 'champion');
      assert.equal(r.json.model_run_id, championRun);
      const p = r.json.probabilities;
      assert.ok(Math.abs(p.home_win + p.draw + p.away_win - 1) < 1e-6, 'probabilities sum to 1');
    }
  } finally {
    await Promise.all(procs.map((p) => p.stop('SIGTERM', 10_000)));
    await killAll();
    rmSync(dataDir, { recursive: true, force: true });
    await dropSchema(schema).catch(() => undefined);
    await clearQueue(REDIS_URL!, queueName).catch(() => undefined);
  }
});
