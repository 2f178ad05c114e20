/**
 * Resident memory of `matchcast start --data <dir>` (compiled dist/), phase by phase: the first start
 * (peak, and at rest 60–90 s after it serves), a restart at rest, after one live `/predict/{id}` and one
 * live `/predict/markets/{id}`, and during a `matchcast ingest` run beside it. VmRSS of the serving
 * process (and of its whole process tree, for children) is read from /proc every second.
 *   node --import tsx bench/memory-start.ts --data ../shared/data/football [--root <checkout>] [--rest 90]
 * With `--serve-rows N` it measures `matchcast serve` instead, on an embedded data folder holding N
 * published predictions and their odds: at rest, and after the full-list routes are read once.
 *   node --import tsx bench/memory-start.ts --serve-rows 45000 [--rest 60] [--pg]
 * `--pg`: the metadata in PostgreSQL (DATABASE_URL, a schema of its own, dropped at the end).
 * Every process it starts is stopped at the end, also on failure.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    root: { type: 'string', default: process.cwd() },
    rest: { type: 'string', default: '90' },
    port: { type: 'string', default: '18731' },
    probe: { type: 'string' },
    keep: { type: 'boolean' },
    'serve-rows': { type: 'string' },
    pg: { type: 'boolean' },
  },
});
const serveRows = values['serve-rows'] ? Number(values['serve-rows']) : 0;
if (!values.data && !serveRows) throw new Error('--data <dir> or --serve-rows N is required');
const root = path.resolve(values.root);
const data = path.resolve(values.data ?? '.');
const restS = Number(values.rest);
const port = Number(values.port);
const dataDir = mkdtempSync(path.join(tmpdir(), 'mc-mem-'));
const apiKey = 'memory-bench-key-0123456789';
const base = `http://127.0.0.1:${port}`;
const env = {
  ...process.env,
  DATA_DIR: dataDir,
  API_KEY: apiKey,
  MATCHCAST_FROM_SOURCE: '0',
  LOG_LEVEL: 'warn',
  GLIBC_TUNABLES:
    process.env.GLIBC_TUNABLES ??
    'glibc.malloc.trim_threshold=131072:glibc.malloc.mmap_threshold=131072:glibc.malloc.arena_max=2',
  ...(values.probe
    ? {
        NODE_OPTIONS: `--require ${path.join(root, 'bench/memory-probe.cjs')}`,
        MEMORY_PROBE_OUT: values.probe,
      }
    : {}),
};
const cli = path.join(root, 'bin/matchcast.js');
const children = new Set<ChildProcess>();

function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Pids of `pid` and all its descendants. */
function tree(pid: number): number[] {
  const kids = new Map<number, number[]>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      kids.set(ppid, [...(kids.get(ppid) ?? []), Number(d)]);
    } catch {
      // gone
    }
  }
  const out = [pid];
  for (let i = 0; i < out.length; i++) out.push(...(kids.get(out[i]) ?? []));
  return out;
}

interface Sample {
  t: number;
  main: number;
  tree: number;
}

function sampler(pid: number) {
  const samples: Sample[] = [];
  const t0 = Date.now();
  const timer = setInterval(() => {
    const main = rssMb(pid);
    const all = tree(pid).reduce((s, p) => s + rssMb(p), 0);
    samples.push({ t: (Date.now() - t0) / 1000, main, tree: all });
  }, 1000);
  return {
    samples,
    since: (t: number) => samples.filter((s) => s.t >= t),
    now: () => (Date.now() - t0) / 1000,
    stop: () => clearInterval(timer),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const fmt = (xs: number[]) =>
  xs.length === 0 ? '-' : `${Math.round(Math.min(...xs))}–${Math.round(Math.max(...xs))} MB`;

function start(): ChildProcess {
  const c = spawn(process.execPath, [cli, 'start', '--data', data, '--port', String(port), '--json'], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.add(c);
  c.stderr?.on('data', (d: Buffer) => process.stderr.write(d));
  c.once('exit', () => children.delete(c));
  return c;
}

async function waitReady(c: ChildProcess, timeoutS = 900): Promise<void> {
  const until = Date.now() + timeoutS * 1000;
  while (Date.now() < until) {
    if (c.exitCode !== null) throw new Error(`start exited ${c.exitCode}`);
    try {
      const r = await fetch(`${base}/readyz`);
      if (r.status === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(500);
  }
  throw new Error('start did not become ready');
}

async function stop(c: ChildProcess): Promise<void> {
  if (c.exitCode !== null) return;
  const gone = new Promise((r) => c.once('exit', r));
  c.kill('SIGINT');
  const t = setTimeout(() => c.kill('SIGKILL'), 20_000);
  await gone;
  clearTimeout(t);
}

async function get(url: string): Promise<{ status: number; body: string }> {
  const r = await fetch(`${base}${url}`, { headers: { 'X-API-Key': apiKey } });
  return { status: r.status, body: await r.text() };
}

async function restPhase(s: ReturnType<typeof sampler>, label: string): Promise<void> {
  const from = s.now();
  await sleep(restS * 1000);
  const window = s.since(from + Math.max(0, restS - 30));
  console.log(
    `${label}: at rest ${fmt(window.map((x) => x.main))} (process), tree ${fmt(window.map((x) => x.tree))}`,
  );
}

const pgSchema = `bench_memory_${process.pid}`;
/** Runs one statement on the PostgreSQL server's default schema. */
async function pgAdmin(sql: string): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

async function serveOnly(): Promise<void> {
  const { writePrecomputedData } = await import('./precomputed-setup.js');
  let databaseUrl: string | undefined;
  if (values.pg) {
    if (!process.env.DATABASE_URL) throw new Error('--pg needs DATABASE_URL');
    const url = new URL(process.env.DATABASE_URL);
    url.searchParams.set('options', `-csearch_path=${pgSchema}`);
    databaseUrl = url.toString();
    await pgAdmin(`CREATE SCHEMA "${pgSchema}"`);
  }
  await writePrecomputedData(dataDir, serveRows, databaseUrl);
  const c = spawn(process.execPath, [cli, 'serve', '--port', String(port)], {
    env: { ...env, ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.add(c);
  c.stderr?.on('data', (d: Buffer) => process.stderr.write(d));
  const s = sampler(c.pid!);
  await waitReady(c);
  console.log(`serve (${serveRows} predictions): ready after ${Math.round(s.now())} s`);
  await restPhase(s, 'serve');
  const from = s.now();
  for (const url of ['/predict/predictions/', '/predict/cards/', '/predict/odds/']) {
    const r = await get(url);
    console.log(`${url}: ${r.status}, ${(r.body.length / 1e6).toFixed(1)} MB`);
  }
  await sleep(30_000);
  console.log(`after the list routes: ${fmt(s.since(from).map((x) => x.main))} (process, over 30 s)`);
  s.stop();
  await stop(c);
}

async function startPhases(): Promise<void> {
  // First start: ingest + first run + serving.
  let c = start();
  let s = sampler(c.pid!);
  await waitReady(c);
  console.log(
    `first start: ready after ${Math.round(s.now())} s, peak ${fmt(s.samples.map((x) => x.main))} (process), tree peak ${fmt(s.samples.map((x) => x.tree))}`,
  );
  await restPhase(s, 'first start');
  s.stop();
  await stop(c);

  // Restart on the same DATA_DIR.
  c = start();
  s = sampler(c.pid!);
  await waitReady(c);
  console.log(`restart: ready after ${s.now().toFixed(1)} s`);
  await restPhase(s, 'restart');

  // One live 1X2 and one live markets request on the latest match (a fixture when there is one).
  const list = await get('/predict/predictions/');
  const rows = JSON.parse(list.body) as { match_id: number; startTimeUtc: string }[];
  const id = rows.reduce((x, y) => (y.startTimeUtc > x.startTimeUtc ? y : x)).match_id;
  const from = s.now();
  const live = await get(`/predict/${id}`);
  const markets = await get(`/predict/markets/${id}?live=true`);
  console.log(`live /predict/${id}: ${live.status}; live markets: ${markets.status}`);
  await sleep(30_000);
  console.log(`after live + markets: ${fmt(s.since(from).map((x) => x.main))} (process, 30 s after)`);

  // An ingest beside the running start (the same data again: upserts, re-predictions).
  const ingFrom = s.now();
  const ing = spawn(process.execPath, [cli, 'ingest', '--source', data], { env, stdio: 'ignore' });
  children.add(ing);
  const ingS = sampler(ing.pid!);
  const ingCode = await new Promise((r) => ing.once('exit', r));
  ingS.stop();
  const during = s.since(ingFrom);
  console.log(
    `during ingest (exit ${ingCode}, ${Math.round(s.now() - ingFrom)} s): serving process ${fmt(during.map((x) => x.main))}, ingest process peak ${fmt(ingS.samples.map((x) => x.main))}`,
  );
  await sleep(20_000);
  console.log(`20 s after ingest: ${fmt(s.since(s.now() - 5).map((x) => x.main))}`);
  s.stop();
  await stop(c);
}

try {
  if (serveRows) await serveOnly();
  else await startPhases();
} finally {
  for (const c of children) c.kill('SIGKILL');
  if (values.pg) await pgAdmin(`DROP SCHEMA IF EXISTS "${pgSchema}" CASCADE`).catch(() => {});
  if (!values.keep) rmSync(dataDir, { recursive: true, force: true });
  else console.log(`DATA_DIR kept: ${dataDir}`);
}
