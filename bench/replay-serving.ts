/**
 * Serving while a replay runs: `matchcast start --data <csv> --as-of <date> --speed N` (compiled
 * dist/, fresh DATA_DIR), then `wrk` on `/predict/precomputed/{id}` with random served ids while the
 * releases arrive; RSS of the server process and of its children sampled every second.
 *
 *   npm run build && node --import tsx bench/replay-serving.ts [--data ../shared/data/football]
 *     [--as-of 2022-09-01] [--speed 3600] [--duration 30] [--connections 8]
 *
 * Prints one JSON line: latency percentiles, releases seen during the load, RSS (server alone, and
 * with its children) at rest before the load and during it, and how long SIGINT took to stop it.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';

const ROOT = path.resolve(import.meta.dirname, '..');
const { values } = parseArgs({
  options: {
    data: { type: 'string', default: path.resolve(ROOT, '..', 'shared', 'data', 'football') },
    'as-of': { type: 'string', default: '2022-09-01' },
    speed: { type: 'string', default: '3600' },
    duration: { type: 'string', default: '30' },
    connections: { type: 'string', default: '8' },
  },
});
const KEY = 'bench-replay-key-0123456789abcdef';

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });

/** VmRSS of `pid` in MB, 0 when it is gone. */
function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** `pid` and every descendant. */
function tree(pid: number): number[] {
  const out = [pid];
  try {
    const kids = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean);
    for (const k of kids) out.push(...tree(Number(k)));
  } catch {
    // gone
  }
  return out;
}

const dataDir = await mkdtemp(path.join(tmpdir(), 'mc-bench-replay-'));
const port = await freePort();
const env: NodeJS.ProcessEnv = {
  ...process.env,
  DATA_DIR: dataDir,
  API_KEY: KEY,
  PORT: String(port),
  HOST: '127.0.0.1',
  LOG_LEVEL: 'info',
  MATCHCAST_FROM_SOURCE: '0',
  GLIBC_TUNABLES:
    'glibc.malloc.trim_threshold=131072:glibc.malloc.mmap_threshold=131072:glibc.malloc.arena_max=2',
};
for (const v of ['DATABASE_URL', 'REDIS_URL', 'CACHE_URL', 'S3_ENDPOINT']) delete env[v];
const server: ChildProcess = spawn(
  process.execPath,
  [
    path.join(ROOT, 'bin', 'matchcast.js'),
    'start',
    '--data',
    values.data,
    '--as-of',
    values['as-of'],
    '--speed',
    values.speed,
  ],
  { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
);
let releases = 0;
let tail = '';
const logFile = process.env.BENCH_LOG;
server.stdout?.on('data', (b: Buffer) => {
  const s = b.toString();
  releases += s.split('replay: released').length - 1;
  tail = (tail + s).slice(-3000);
  if (logFile) appendFileSync(logFile, s);
});
server.stderr?.on('data', (b: Buffer) => {
  tail = (tail + b.toString()).slice(-3000);
});
const killAll = () => {
  try {
    process.kill(-server.pid!, 'SIGKILL');
  } catch {
    // already gone
  }
};
process.once('exit', killAll);
process.once('SIGINT', () => process.exit(130));

try {
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 600_000;
  while (Date.now() < deadline) {
    const r = await fetch(`${base}/readyz`).catch(() => null);
    if (r?.ok) break;
    if (server.exitCode !== null) throw new Error(`server exited ${server.exitCode}:\n${tail}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
  const rows = (await (
    await fetch(`${base}/predict/predictions/`, { headers: { 'x-api-key': KEY } })
  ).json()) as { matchId?: number; match_id?: number }[];
  const ids = rows.map((r) => r.match_id ?? r.matchId).filter((x): x is number => typeof x === 'number');
  if (ids.length === 0) throw new Error('no served predictions');
  const script = path.join(dataDir, 'ids.lua');
  await writeFile(
    script,
    `local ids = {${ids.slice(0, 20000).join(',')}}
math.randomseed(os.time())
wrk.headers["X-API-Key"] = "${KEY}"
request = function() return wrk.format("GET", "/predict/precomputed/" .. ids[math.random(1, #ids)]) end
`,
  );
  await new Promise((r) => setTimeout(r, 20_000));
  const restServer = rssMb(server.pid!);
  const restTree = tree(server.pid!).reduce((a, p) => a + rssMb(p), 0);
  const releasesBefore = releases;
  let peakServer = 0;
  let peakTree = 0;
  const sampler = setInterval(() => {
    peakServer = Math.max(peakServer, rssMb(server.pid!));
    peakTree = Math.max(
      peakTree,
      tree(server.pid!).reduce((a, p) => a + rssMb(p), 0),
    );
  }, 1000);
  const { stdout } = await promisify(execFile)('wrk', [
    '-t2',
    `-c${values.connections}`,
    `-d${values.duration}s`,
    '--latency',
    '-s',
    script,
    base,
  ]);
  clearInterval(sampler);
  const pct = (p: string) => {
    const m = new RegExp(`\\s${p}%\\s+([\\d.]+)(us|ms|s)`).exec(stdout);
    if (!m) return null;
    const v = Number(m[1]);
    return m[2] === 'us' ? v / 1000 : m[2] === 's' ? v * 1000 : v;
  };
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1]);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? 0);
  // Memory back at rest once the releases' view builds are over (the builder thread ends when idle).
  await new Promise((r) => setTimeout(r, 10_000));
  const afterServer = rssMb(server.pid!);
  const stopAt = performance.now();
  server.kill('SIGINT');
  await new Promise((r) => server.once('exit', r));
  console.log(
    JSON.stringify({
      date: new Date().toISOString(),
      speed: Number(values.speed),
      connections: Number(values.connections),
      rps: Math.round(rps),
      non2xx,
      p50_ms: pct('50'),
      p90_ms: pct('90'),
      p99_ms: pct('99'),
      releases_during_load: releases - releasesBefore,
      rss_rest_mb: { server: Math.round(restServer), with_children: Math.round(restTree) },
      rss_peak_during_load_mb: { server: Math.round(peakServer), with_children: Math.round(peakTree) },
      rss_10s_after_load_mb: Math.round(afterServer),
      sigint_stop_s: Math.round((performance.now() - stopAt) / 100) / 10,
    }),
  );
} finally {
  killAll();
  await rm(dataDir, { recursive: true, force: true });
}
