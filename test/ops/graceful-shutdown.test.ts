// Graceful shutdown of real `matchcast worker` and `matchcast serve` processes:
// SIGTERM lets work in flight finish, refuses new connections, exits 0, and is bounded by
// SHUTDOWN_TIMEOUT_MS; a task that cannot finish in time is handed back. `pipeline run` stopped by
// SIGINT leaves its run failed and publishes nothing; `start` during a replay stops within 10 s.
// Heavy: ~2 min.
import assert from 'node:assert/strict';
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import pg from 'pg';
import {
  API_KEY,
  CLUSTER_SKIP,
  type Cluster,
  exitWithin,
  get,
  MATCHCAST_BIN,
  PG_URL,
  type Proc,
  post,
  type Res,
  sleep,
  spawnProc,
  startCluster,
  startTcpProxy,
  waitFor,
  waitForOutput,
} from '../helpers/cluster.js';

const SHUTDOWN_TIMEOUT_MS = 4000;

let c: Cluster;
before(async () => {
  if (CLUSTER_SKIP) return;
  c = await startCluster({
    apis: 2,
    workers: 2,
    env: {
      SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
      PREDICTION_CACHE_TTL: '1',
      PREDICT_TIMEOUT_MS: '15000',
    },
  });
});
after(async () => {
  await c?.close();
});

function freeze(p: Proc): void {
  if (p.child.pid) process.kill(p.child.pid, 'SIGSTOP');
}
function thaw(p: Proc): void {
  if (p.child.pid) process.kill(p.child.pid, 'SIGCONT');
}

/** Resolves true when a TCP connection to the port is refused. */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.once('error', () => resolve(true));
  });
}

/** Task ids of every job of the queue whose hash carries a stalled counter > 0. */
async function stalledJobs(): Promise<number> {
  const redis = new Redis(c.env.REDIS_URL, { maxRetriesPerRequest: 1 });
  let stalled = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `bull:${c.queueName}:*-*-*-*-*`, 'COUNT', 500);
      cursor = next;
      for (const key of keys) if (Number(await redis.hget(key, 'stc')) > 0) stalled++;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  return stalled;
}

test('worker SIGTERM under load: the tasks it holds finish, it exits 0, no request fails', {
  skip: CLUSTER_SKIP,
}, async () => {
  const victim = c.workers[0];
  const results: Res[] = [];
  const errors: string[] = [];
  let stop = false;
  let n = 0;
  const loops = Array.from({ length: 8 }, async (_, i) => {
    while (!stop) {
      const id = c.matchIds[n++ % c.matchIds.length];
      try {
        results.push(await get(c.apis[(i + n) % 2].base, `/predict/${id}`, 20_000));
      } catch (err) {
        errors.push(String(err));
      }
    }
  });
  await sleep(800);
  // Frozen, the worker certainly holds fetched tasks when the signal arrives; it handles SIGTERM on thaw.
  freeze(victim);
  await sleep(300);
  victim.child.kill('SIGTERM');
  const signalledAt = Date.now();
  thaw(victim);
  const code = await exitWithin(victim, SHUTDOWN_TIMEOUT_MS + 5000);
  const exitMs = Date.now() - signalledAt;
  await sleep(800);
  stop = true;
  await Promise.all(loops);

  assert.equal(code, 0, `worker exit code:\n${victim.output().slice(-2000)}`);
  assert.ok(/worker stopped/.test(victim.output()), 'logged worker stopped');
  assert.ok(!/did not finish in time/.test(victim.output()), 'the worker finished its tasks');
  assert.deepEqual(errors, []);
  assert.deepEqual(
    results.filter((r) => r.status !== 200).map((r) => `${r.status} ${r.text}`),
    [],
    'every live request answered 200',
  );
  assert.equal(await stalledJobs(), 0, 'no task was left behind for stalled-job recovery');
  console.log(
    `# worker SIGTERM under load: ${results.length} live requests all 200; worker exited 0 after ${exitMs} ms`,
  );
  c.workers[0] = await c.startWorker();
});

test('API SIGTERM: refuses new connections, finishes the request in flight, exits 0', {
  skip: CLUSTER_SKIP,
}, async () => {
  const api = c.apis[0];
  c.workers.forEach(freeze);
  let inflight: Promise<Res>;
  try {
    inflight = get(api.base, `/predict/${c.matchIds[20]}`, 20_000);
    await sleep(500); // the request is in the API, waiting for a worker
    api.proc.child.kill('SIGTERM');
    await waitForOutput(api.proc, /shutting down/, 5000);
    const started = Date.now();
    let isRefused = false;
    while (!isRefused && Date.now() - started < 3000) isRefused = await refused(api.port);
    assert.ok(isRefused, 'new connections refused once shutting down');
    await sleep(500);
    assert.ok(api.proc.running(), 'still running while a request is in flight');
  } finally {
    c.workers.forEach(thaw);
  }
  const r = await inflight;
  assert.equal(r.status, 200, `the in-flight request completes: ${r.text}`);
  const code = await exitWithin(api.proc, SHUTDOWN_TIMEOUT_MS + 5000);
  assert.equal(code, 0, api.proc.output().slice(-2000));
  assert.ok(/"msg":"stopped"/.test(api.proc.output()), 'logged stopped');
  assert.ok(!/cut at the shutdown bound/.test(api.proc.output()), 'closed before the bound');
  console.log(`# API SIGTERM: in-flight live request answered 200 after ${r.ms.toFixed(0)} ms, exit 0`);
});

test('API SIGTERM is bounded by SHUTDOWN_TIMEOUT_MS when a request never finishes', {
  skip: CLUSTER_SKIP,
}, async () => {
  const api = c.apis[1];
  c.workers.forEach(freeze);
  try {
    const inflight = get(api.base, `/predict/${c.matchIds[21]}`, 20_000).catch((err: unknown) => err);
    await sleep(500);
    const signalledAt = Date.now();
    api.proc.child.kill('SIGTERM');
    const code = await exitWithin(api.proc, SHUTDOWN_TIMEOUT_MS + 8000);
    const ms = Date.now() - signalledAt;
    assert.equal(code, 0, api.proc.output().slice(-2000));
    assert.ok(ms >= SHUTDOWN_TIMEOUT_MS - 100, `waited for the request: ${ms} ms`);
    assert.ok(ms < SHUTDOWN_TIMEOUT_MS + 5000, `bounded: exited ${ms} ms after SIGTERM`);
    assert.ok(/cut at the shutdown bound/.test(api.proc.output()), 'the bound was used');
    await inflight;
    console.log(
      `# API SIGTERM with a stuck request: exit 0 after ${ms} ms (SHUTDOWN_TIMEOUT_MS=${SHUTDOWN_TIMEOUT_MS})`,
    );
  } finally {
    c.workers.forEach(thaw);
  }
});

test('worker SIGTERM with a task that cannot finish in time: the task is handed back and completed elsewhere', {
  skip: CLUSTER_SKIP,
}, async () => {
  // A worker whose object store hangs (connections accepted, never answered): its first task blocks
  // loading the model, longer than its shutdown bound.
  const s3 = new URL(c.s3.endpoint);
  const hangingS3 = await startTcpProxy(s3.hostname, Number(s3.port));
  const stuck = await c.startWorker({
    S3_ENDPOINT: `http://127.0.0.1:${hangingS3.port}`,
    SHUTDOWN_TIMEOUT_MS: '1500',
  });
  const api = await c.startApi();
  c.apis.push(api);
  let taskId = '';
  try {
    c.workers.forEach(freeze); // only the stuck worker takes the task
    hangingS3.blackhole();
    const accepted = await post(api.base, '/predict/async/', { match_id: c.matchIds[30] });
    assert.equal(accepted.status, 202);
    taskId = accepted.json.task_id;
    await waitFor(
      'the stuck worker to start the task',
      async () => (await get(api.base, `/monitoring/task_status/${taskId}`)).json?.status === 'STARTED',
      10_000,
      50,
    );
    const signalledAt = Date.now();
    stuck.child.kill('SIGTERM');
    const code = await exitWithin(stuck, 10_000);
    const ms = Date.now() - signalledAt;
    assert.equal(code, 0, stuck.output().slice(-2000));
    assert.ok(/did not finish in time/.test(stuck.output()), 'the bound was used');
    assert.ok(ms < 1500 + 5000, `bounded: ${ms} ms`);
    console.log(`# worker SIGTERM with a stuck task: exit 0 after ${ms} ms (SHUTDOWN_TIMEOUT_MS=1500)`);
  } finally {
    c.workers.forEach(thaw);
    hangingS3.forward();
    await hangingS3.stop();
    await stuck.stop('SIGKILL', 2000);
  }
  // The lock of the abandoned task runs out (10 s) and a running worker takes it over.
  const handedBackAt = Date.now();
  const final = await waitFor(
    `task ${taskId} to complete elsewhere`,
    async () => {
      const r = await get(api.base, `/monitoring/task_status/${taskId}`);
      return r.json?.status === 'SUCCESS' || r.json?.status === 'FAILURE' ? r.json : undefined;
    },
    30_000,
    250,
  );
  assert.equal(final.status, 'SUCCESS');
  assert.equal(final.result.match_id, c.matchIds[30]);
  assert.ok((await stalledJobs()) >= 1, 'completed through stalled-job recovery');
  console.log(
    `# handed-back task completed by another worker ${Date.now() - handedBackAt} ms after the stuck worker exited`,
  );
});

/** True while any process of the group led by `p` is alive (children and grandchildren included). */
function groupAlive(p: Proc): boolean {
  try {
    process.kill(-(p.child.pid as number), 0);
    return true;
  } catch {
    return false;
  }
}

test('pipeline run stopped by SIGINT: exits within 10 s, its run failed, nothing published', {
  skip: CLUSTER_SKIP,
}, async () => {
  const db = new pg.Client({ connectionString: PG_URL });
  await db.connect();
  try {
    const published = async () =>
      (await db.query(`SELECT run_id, seq FROM "${c.schema}".published_run`)).rows[0] as
        | { run_id: string; seq: number }
        | undefined;
    const before = await published();
    const run = spawnProc('pipeline run', process.execPath, [MATCHCAST_BIN, 'pipeline', 'run'], {
      ...c.env,
      LOG_LEVEL: 'info',
    });
    try {
      await waitForOutput(run, /run started/, 60_000);
      const runId = /"run_id":"([^"]+)","kind":"full"[^\n]*run started/.exec(run.output())?.[1];
      assert.ok(runId, 'the run id is logged');
      // To the process alone, as an orchestrator signals PID 1; a terminal's Ctrl-C reaches the group.
      run.child.kill('SIGINT');
      const signalledAt = Date.now();
      const code = await exitWithin(run, 15_000);
      const ms = Date.now() - signalledAt;
      assert.equal(code, 130, run.output().slice(-3000));
      assert.ok(ms < 10_000, `stopped ${ms} ms after SIGINT`);
      assert.match(run.output(), /shutting down/);
      await waitFor('the process group to be gone', () => !groupAlive(run), 3000, 50);
      const status = (
        await db.query(`SELECT status FROM "${c.schema}".pipeline_runs WHERE run_id = $1`, [runId])
      ).rows[0]?.status;
      assert.equal(status, 'failed', 'the run is marked failed, not left running');
      const after = await published();
      assert.deepEqual(after, before, 'the published run did not move');
      const registered = await db.query(
        `SELECT version, status FROM "${c.schema}".model_versions WHERE pipeline_run_id = $1`,
        [runId],
      );
      assert.ok(
        registered.rows.every((r) => r.status === 'failed'),
        `versions of the stopped run are hidden: ${JSON.stringify(registered.rows)}`,
      );
      console.log(`# pipeline run SIGINT: exit 130 after ${ms} ms; run ${runId} failed, pointer unchanged`);
    } finally {
      await run.stop('SIGKILL', 2000);
    }
  } finally {
    await db.end();
  }
});

test('start during a replay stops within 10 s of SIGTERM and starts nothing after "shutting down"', {
  skip: CLUSTER_SKIP,
  timeout: 300_000,
}, async () => {
  // Three seasons of one real league, replayed from 2022-09-01 at 10 simulated hours per second with a
  // daily pipeline run on the replay clock: releases and child pipeline runs keep the server busy.
  const dir = await mkdtemp(path.join(tmpdir(), 'mc-replay-stop-'));
  await mkdir(path.join(dir, 'data'));
  await copyFile(
    new URL('../fixtures/football/england.csv', import.meta.url),
    path.join(dir, 'data', 'england.csv'),
  );
  const start = spawnProc(
    'start (replay)',
    process.execPath,
    [MATCHCAST_BIN, 'start', '--data', path.join(dir, 'data'), '--as-of', '2022-09-01', '--speed', '36000'],
    {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? tmpdir(),
      DATA_DIR: path.join(dir, 'var'),
      API_KEY,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      PIPELINE_SCHEDULE: 'every 1d',
      NO_COLOR: '1',
    },
  );
  try {
    await waitForOutput(start, /"msg":"listening"/, 240_000);
    // Busy: a scheduled run is going (a child process) while releases arrive.
    await waitForOutput(start, /pipeline run started \(child process\)/, 60_000);
    await sleep(1500);
    start.child.kill('SIGTERM');
    const signalledAt = Date.now();
    const code = await exitWithin(start, 20_000);
    const ms = Date.now() - signalledAt;
    assert.equal(code, 0, start.output().slice(-3000));
    assert.ok(ms < 10_000, `stopped ${ms} ms after SIGTERM`);
    await waitFor('the process group to be gone', () => !groupAlive(start), 3000, 50);
    const out = start.output();
    const after = out.slice(out.indexOf('shutting down'));
    assert.ok(out.includes('shutting down'), 'logged shutting down');
    assert.doesNotMatch(after, /pipeline run started/, 'nothing started after shutting down');
    console.log(`# start during a replay: SIGTERM → exit 0 after ${ms} ms, no process left`);
  } finally {
    await start.stop('SIGKILL', 2000);
    await rm(dir, { recursive: true, force: true });
  }
});
