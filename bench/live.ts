/**
 * Benchmark of the live path `GET /predict/{match_id}` through real Redis: API process +
 * `matchcast worker` process + local Redis, cache bypassed (CACHE_URL on a closed port), ids spread
 * uniformly over all matches of the features file. wrk at 64 and at 3 connections.
 *
 *   DATABASE_URL=postgres://… REDIS_URL=redis://127.0.0.1:6379 node --import tsx bench/live.ts [--matches 45000] [--duration 15]
 *        [--rounds 1] [--concurrency 16] [--threads 2]
 *
 * The API and the worker share the model registry in PostgreSQL (a schema of its own, dropped at the
 * end). Runs the compiled service (`npm run build` first; `--root <checkout>` runs another checkout's build on
 * the same data). With `--rounds N` each connection count is measured N times (alternating) and the
 * table gives the median with the min–max spread; any non-2xx answer fails the run.
 *
 * Needs `wrk` (apt-get install -y wrk). Prints a Markdown table and a JSON summary.
 */
import { execFile, fork, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import pg from 'pg';
import { parseConfig } from '../src/config.js';
import { openDatabase } from '../src/db/index.js';
import {
  FEATURE_NAMES,
  type FeatureRow,
  featureRowsToParquet,
  MODEL_FEATURE_NAMES,
  toModelInput,
} from '../src/features/index.js';
import { serializeModel } from '../src/model/index.js';
import { trainModel } from '../src/model/model.js';
import { createRegistry } from '../src/registry/index.js';
import { createObjectStore } from '../src/storage/index.js';
import { publishArtifacts } from '../test/helpers/served.js';

const run = promisify(execFile);
const { values } = parseArgs({
  options: {
    matches: { type: 'string', default: '45000' },
    duration: { type: 'string', default: '15' },
    rounds: { type: 'string', default: '1' },
    concurrency: { type: 'string', default: '16' },
    threads: { type: 'string', default: '2' },
    api: { type: 'string', default: 'serve' },
    'log-level': { type: 'string', default: 'warn' },
    /** Another checkout whose compiled service (`bin/matchcast.js`) runs instead of this one's. */
    root: { type: 'string' },
  },
});
const MATCHES = Number(values.matches);
const DURATION = Number(values.duration);
const ROUNDS = Number(values.rounds);
const KEY = 'bench-key-0123456789abcdef';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const ROOT = values.root ? path.resolve(values.root) : path.resolve(import.meta.dirname, '..');

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

async function prepare(dataDir: string, databaseUrl: string): Promise<void> {
  const config = parseConfig({ DATA_DIR: dataDir, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' });
  const store = createObjectStore(config);
  const r = rng(42);
  const rows: FeatureRow[] = [];
  for (let id = 1; id <= MATCHES; id++) {
    const row: Record<string, unknown> = {
      match_id: id,
      // Every match after the model's training cut-off (2020-01-01): all are scored by the model.
      start_time_utc: new Date(Date.UTC(2021, 0, 1) + id * 1_800_000),
      region_id: 1 + (id % 20),
      season: '2020-2021',
      home_team_name: `Home ${id % 500}`,
      away_team_name: `Away ${(id * 7) % 500}`,
      label: id % 3,
      is_future: false,
      as_of: new Date(Date.UTC(2026, 0, 1)),
    };
    for (const name of FEATURE_NAMES) row[name] = r() < 0.05 ? null : r() - 0.5;
    rows.push(row as FeatureRow);
  }
  const train = rows.slice(0, 5000);
  const names = [...MODEL_FEATURE_NAMES];
  const model = trainModel(
    train.map((row) => toModelInput(row, names)),
    train.map((row) => row.label ?? 0),
    { featureNames: names, maxIter: 50 },
  );
  const db = await openDatabase(config);
  // Workers read the features of the published run.
  await publishArtifacts(
    { db, store },
    { features: featureRowsToParquet(rows) },
    { fresh: true, actor: 'bench' },
  );
  const registry = createRegistry({ db, store }, config);
  const v = await registry.registerVersion({
    metrics: { log_loss: 1.0 },
    params: {},
    feature_names: names,
    training_cutoff: new Date(Date.UTC(2020, 0, 1)),
    artifact: serializeModel(model),
  });
  await registry.setAlias('champion', v.version, 'bench');
  await db.close();
  await store.close();
}

/** CPU time (ms) of a process from /proc (utime + stime, in clock ticks of 10 ms). */
async function procCpuMs(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const stat = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ');
  return (Number(stat[11]) + Number(stat[12])) * 10;
}

interface WrkResult {
  connections: number;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  non2xx: number;
  errors: string;
  /** CPU ms per request of the API process, the worker process and Redis. */
  cpu?: Record<string, number>;
}

function ms(v: string): number {
  const m = /^([\d.]+)(us|ms|s)$/.exec(v.trim());
  if (!m) return Number.NaN;
  const n = Number(m[1]);
  return m[2] === 'us' ? n / 1000 : m[2] === 's' ? n * 1000 : n;
}

async function wrk(port: number, connections: number, script: string): Promise<WrkResult> {
  const threads = Math.min(Number(values.threads), connections);
  const { stdout } = await run(
    'wrk',
    [
      '-t',
      String(threads),
      '-c',
      String(connections),
      '-d',
      `${DURATION}s`,
      '--latency',
      '-s',
      script,
      `http://127.0.0.1:${port}`,
    ],
    { maxBuffer: 1 << 20 },
  );
  const pct = (p: string) => ms(new RegExp(`^\\s+${p}%\\s+(\\S+)`, 'm').exec(stdout)?.[1] ?? '');
  return {
    connections,
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1]),
    p50: pct('50'),
    p90: pct('90'),
    p99: pct('99'),
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? 0),
    errors: /Socket errors: .*/.exec(stdout)?.[0] ?? '',
  };
}

const dataDir = await mkdtemp(path.join(os.tmpdir(), 'mc-bench-live-'));
const queueName = `bench-${process.pid}`;
if (!process.env.DATABASE_URL)
  throw new Error('bench/live.ts needs DATABASE_URL (PostgreSQL) for the registry');
const schema = `bench_live_${process.pid}`;
/** Runs one statement on the server's default schema. */
async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
await admin(`CREATE SCHEMA "${schema}"`);
// A startup option of every connection: the API, the worker and the set-up work in the bench's schema.
const databaseUrl = new URL(process.env.DATABASE_URL);
databaseUrl.searchParams.set('options', `-csearch_path=${schema}`);
const env = {
  ...process.env,
  DATA_DIR: dataDir,
  DATABASE_URL: databaseUrl.toString(),
  REDIS_URL,
  QUEUE_NAME: queueName,
  CACHE_URL: 'redis://127.0.0.1:1',
  API_KEY: KEY,
  LOG_LEVEL: String(values['log-level']),
  PORT: String(18_000 + (process.pid % 1000)),
  WORKER_CONCURRENCY: String(values.concurrency),
};
console.error(`preparing ${MATCHES} matches in ${dataDir} …`);
await prepare(dataDir, databaseUrl.toString());

// BENCH_PROFILE_DIR=<dir>: V8 CPU profiles of the API and the worker (open in Chrome DevTools).
const prof = process.env.BENCH_PROFILE_DIR
  ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`]
  : [];
const worker = spawn(process.execPath, [...prof, 'bin/matchcast.js', 'worker'], {
  cwd: ROOT,
  env,
  stdio: ['ignore', 'ignore', 'inherit'],
});
// `--api serve`: the real `matchcast serve` (PGlite in DATA_DIR unless DATABASE_URL is set);
// `--api app`: bench/live-server.ts (the same app without the database, reports its own CPU).
const useServe = values.api === 'serve';
const api = useServe
  ? spawn(process.execPath, [...prof, 'bin/matchcast.js', 'serve'], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'ignore', 'inherit'],
    })
  : fork(path.join(import.meta.dirname, 'live-server.ts'), [], {
      cwd: ROOT,
      env,
      execArgv: [...prof, '--import', 'tsx'],
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
// A run that fails midway leaves no server behind.
process.once('exit', () => {
  api.kill('SIGTERM');
  worker.kill('SIGTERM');
});
process.once('uncaughtException', (err) => {
  console.error(err);
  admin(`DROP SCHEMA "${schema}" CASCADE`).finally(() => process.exit(1));
});
const port = useServe
  ? Number(env.PORT)
  : await new Promise<number>((resolve, reject) => {
      api.once('message', (m: { port: number }) => resolve(m.port));
      api.once('exit', (code) => reject(new Error(`api exited ${code}`)));
    });
for (let i = 0; i < 300; i++) {
  const res = await fetch(`http://127.0.0.1:${port}/healthcheck/`).catch(() => null);
  if (res?.status === 200) break;
  await new Promise((r) => setTimeout(r, 200));
}
const script = path.join(dataDir, 'ids.lua');
await writeFile(
  script,
  `math.randomseed(os.time())
wrk.headers["X-API-Key"] = "${KEY}"
request = function() return wrk.format("GET", "/predict/" .. math.random(1, ${MATCHES})) end
`,
);
// Warm up: the worker loads the model and the features on its first task.
for (let i = 0; i < 100; i++) {
  const res = await fetch(`http://127.0.0.1:${port}/predict/1`, { headers: { 'x-api-key': KEY } }).catch(
    () => null,
  );
  if (res?.status === 200) break;
  await new Promise((r) => setTimeout(r, 200));
}
const sample = await (
  await fetch(`http://127.0.0.1:${port}/predict/2`, { headers: { 'x-api-key': KEY } })
).json();
console.error('sample', JSON.stringify(sample));
if (typeof sample.match_id !== 'number')
  throw new Error(`the live route did not answer a prediction: ${JSON.stringify(sample)}`);
await wrk(port, 64, script); // warm-up round (JIT, connection pools)
const redisPid = Number(
  /process_id:(\d+)/.exec((await run('redis-cli', ['-u', REDIS_URL, 'info', 'server'])).stdout)?.[1],
);
const apiCpu = () => procCpuMs(api.pid!);
const cpuNow = async () => ({
  api: await apiCpu(),
  worker: await procCpuMs(worker.pid!),
  redis: await procCpuMs(redisPid),
});
const results: WrkResult[] = [];
for (let round = 0; round < ROUNDS; round++) {
  for (const c of [64, 3]) {
    const before = await cpuNow();
    const r = await wrk(port, c, script);
    const after = await cpuNow();
    const n = r.rps * DURATION;
    r.cpu = {
      api: Math.round(((after.api - before.api) / n) * 1000) / 1000,
      worker: Math.round(((after.worker - before.worker) / n) * 1000) / 1000,
      redis: Math.round(((after.redis - before.redis) / n) * 1000) / 1000,
    };
    console.error(`round ${round + 1} c=${c}: ${Math.round(r.rps)} req/s p50 ${r.p50} ms p99 ${r.p99} ms`);
    results.push(r);
  }
}
const { readFile } = await import('node:fs/promises');
const rss = Math.round(
  Number(/VmRSS:\s+(\d+)/.exec(await readFile(`/proc/${api.pid}/status`, 'utf8'))?.[1]) / 1024,
);

const median = (xs: number[]) => {
  const v = [...xs].sort((a, b) => a - b);
  return v.length % 2 ? v[(v.length - 1) / 2]! : (v[v.length / 2 - 1]! + v[v.length / 2]!) / 2;
};
const spread = (xs: number[], digits: number) =>
  `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;
console.log(
  `| connections | req/s, median (min–max of ${ROUNDS}) | p50 ms | p90 ms | p99 ms, median (min–max) | non-2xx | CPU ms/req api + worker + redis (median) |`,
);
console.log(`|---|---|---|---|---|---|---|`);
for (const c of [64, 3]) {
  const rs = results.filter((r) => r.connections === c);
  const cpu = (k: string) => median(rs.map((r) => r.cpu?.[k] ?? Number.NaN));
  console.log(
    `| ${c} | ${spread(
      rs.map((r) => r.rps),
      0,
    )} | ${median(rs.map((r) => r.p50))} | ${median(rs.map((r) => r.p90))} | ${spread(
      rs.map((r) => r.p99),
      2,
    )} | ${rs.reduce((s, r) => s + r.non2xx, 0)} | ${cpu('api')} + ${cpu('worker')} + ${cpu('redis')} |`,
  );
}
console.log(
  JSON.stringify({ matches: MATCHES, duration: DURATION, load: os.loadavg(), apiRssMb: rss, results }),
);
const failed = results.reduce((n, r) => n + r.non2xx, 0);
if (failed > 0) console.error(`FAILED: ${failed} non-2xx answers`);

api.kill('SIGTERM');
worker.kill('SIGTERM');
await Promise.all([new Promise((r) => worker.once('exit', r)), new Promise((r) => api.once('exit', r))]);
await rm(dataDir, { recursive: true, force: true });
await admin(`DROP SCHEMA "${schema}" CASCADE`);
process.exit(failed > 0 ? 1 : 0);
