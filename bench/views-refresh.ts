/**
 * `GET /predict/precomputed/{id}` while the serving views rebuild again and again: what a replay
 * does to the API (a run published every few seconds). The driver hosts the deployment's embedded
 * database, publishes a copy of the served run's artifacts as a second run, and moves the pointer
 * between the two every `--every` ms while wrk runs; the server (the real `buildApp`, compiled with
 * esbuild per checkout) polls the pointer every 250 ms and rebuilds its views at each move.
 *
 *   node --import tsx bench/views-refresh.ts --data <DATA_DIR of a bootstrapped deployment>
 *     [--baseline <worktree of other code>] [--rounds 3] [--duration 20] [--every 3000]
 *     [--connections 8] [--modes here,base,here:idle]
 *
 * Modes: `here` (this checkout), `base` (the baseline), `<mode>:idle` (same server, pointer left
 * alone: the floor). Rounds rotate the order. Per mode: wrk latency percentiles, the server's
 * longest event-loop block and view swaps in the window. The data folder is copied first; needs wrk.
 */
import { type ChildProcess, execFile, fork } from 'node:child_process';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import type { Plugin } from 'esbuild';
import { parseConfig } from '../src/config.js';
import { embeddedDbDir, hostEmbeddedDatabase, openDatabase } from '../src/db/index.js';
import { readArtifact, readPublished, rollbackRun } from '../src/runs/index.js';
import { createObjectStore, readParquet } from '../src/storage/index.js';
import { publishArtifacts } from '../test/helpers/served.js';

const run = promisify(execFile);
const { values: args } = parseArgs({
  options: {
    data: { type: 'string' },
    baseline: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '20' },
    every: { type: 'string', default: '3000' },
    connections: { type: 'string', default: '8' },
    modes: { type: 'string' },
  },
});
if (!args.data) throw new Error('--data <DATA_DIR of a bootstrapped deployment> is required');
const ROOT = path.join(import.meta.dirname, '..');
const ROUNDS = Number(args.rounds);
const DURATION = Number(args.duration);
const EVERY = Number(args.every);
const CONNECTIONS = Number(args.connections);
const MODES = (args.modes ?? (args.baseline ? 'here,base' : 'here')).split(',');
const KEY = 'bench-key-0123456789abcdef';
const running = new Set<ChildProcess>();

/** Bundles bench/views-refresh-server.ts against `<root>/src` (and the views' thread beside it). */
async function bundle(root: string, tag: string): Promise<string> {
  const { build } = await import('esbuild');
  const outdir = path.join(root, 'var', `bench-${process.pid}-${tag}`);
  // The server's `../src/` imports resolve in `root`, so one server script runs any checkout.
  const srcOf: Plugin = {
    name: 'src-of-root',
    setup(b) {
      b.onResolve({ filter: /^\.\.\/src\// }, async (a) =>
        a.importer.endsWith('views-refresh-server.ts')
          ? b.resolve(`./${a.path.slice(3)}`, { resolveDir: root, kind: a.kind })
          : undefined,
      );
    },
  };
  const options = {
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
  } as const;
  const outfile = path.join(outdir, 'views-refresh-server.mjs');
  await build({
    ...options,
    entryPoints: [path.join(ROOT, 'bench', 'views-refresh-server.ts')],
    outfile,
    plugins: [srcOf],
  });
  const thread = path.join(root, 'src', 'serving', 'view-builder-thread.ts');
  await build({
    ...options,
    entryPoints: [thread],
    outfile: path.join(outdir, 'view-builder-thread.js'),
  }).catch(
    () => undefined, // a checkout without the builder thread
  );
  return outfile;
}

interface Server {
  port: number;
  ask(msg: string, field: string): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

function startServer(entry: string, dataDir: string): Promise<Server> {
  const child = fork(entry, [dataDir], {
    // Compiled: no tsx loader in the server. BENCH_SERVER_ARGV adds node flags (e.g. --cpu-prof).
    execArgv: (process.env.BENCH_SERVER_ARGV ?? '').split(' ').filter(Boolean),
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    env: {
      ...process.env,
      LOG_LEVEL: 'info',
      VIEW_REFRESH_MS: '250',
      NODE_ENV: 'production',
      // As `npm start` sets it (RSS figures comparable with `matchcast start`).
      GLIBC_TUNABLES:
        'glibc.malloc.trim_threshold=131072:glibc.malloc.mmap_threshold=131072:glibc.malloc.arena_max=2',
    },
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('server did not start in 300 s')), 300_000);
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    child.once('message', (msg: { port: number }) => {
      clearTimeout(timer);
      resolve({
        port: msg.port,
        ask: (m, field) =>
          new Promise((res) => {
            const on = (reply: Record<string, unknown>) => {
              if (field in reply) {
                child.off('message', on);
                res(reply);
              }
            };
            child.on('message', on);
            child.send(m);
          }),
        stop: () =>
          new Promise((res) => {
            child.removeAllListeners('exit');
            child.once('exit', () => res());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

function toMs(v: string): number {
  const m = /^([\d.]+)(us|ms|s)$/.exec(v.trim());
  if (!m) return Number.NaN;
  const n = Number(m[1]);
  return m[2] === 'us' ? n / 1000 : m[2] === 's' ? n * 1000 : n;
}

async function wrk(port: number, script: string, seconds: number) {
  const { stdout } = await run(
    'wrk',
    // A long timeout: a request held up by a blocked event loop counts in the latencies.
    [
      '-t2',
      `-c${CONNECTIONS}`,
      `-d${seconds}s`,
      '--timeout',
      '30s',
      '--latency',
      '-s',
      script,
      `http://127.0.0.1:${port}`,
    ],
    { timeout: (seconds + 30) * 1000 },
  );
  const pct = (p: string) => toMs(new RegExp(`^\\s+${p}%\\s+(\\S+)`, 'm').exec(stdout)?.[1] ?? '');
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1];
  const timeouts = /timeout (\d+)/.exec(/Socket errors: (.*)/.exec(stdout)?.[1] ?? '')?.[1];
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1]),
    p50: pct('50'),
    p90: pct('90'),
    p99: pct('99'),
    max: toMs(/Latency\s+\S+\s+\S+\s+(\S+)/.exec(stdout)?.[1] ?? ''),
    errors: Number(non2xx ?? 0) + Number(timeouts ?? 0),
  };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = (xs: number[], digits = 1) =>
  `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;

async function main(): Promise<void> {
  const work = await mkdtemp(path.join(os.tmpdir(), 'matchcast-bench-views-'));
  const dataDir = path.join(work, 'data');
  const bundles: string[] = [];
  let host: Awaited<ReturnType<typeof hostEmbeddedDatabase>> | undefined;
  try {
    await cp(args.data as string, dataDir, { recursive: true });
    const config = parseConfig({
      DATA_DIR: dataDir,
      URL_SIGNING_SECRET: 'bench-secret-bench-secret-bench-secret',
    });
    host = await hostEmbeddedDatabase(embeddedDbDir(config));
    const db = await openDatabase(config);
    const store = createObjectStore(config);
    const deps = { db, store };
    const served = await readPublished(db);
    if (!served) throw new Error(`${args.data} has no published run`);
    // Run B: the served run's view files written again under a run of their own (new keys, so
    // every move of the pointer is a full reload of predictions, odds, markets and ROI).
    const files: Record<string, Buffer> = {};
    for (const name of ['predictions', 'odds', 'markets', 'roiByRegion'] as const) {
      const obj = await readArtifact(deps, name);
      if (obj) files[name] = obj.body;
    }
    const runs = [served.run_id, await publishArtifacts(deps, files, { actor: 'bench' })];
    const ids = (await readParquet(files.predictions)).map((r) => r.match_id as number);
    const script = path.join(work, 'ids.lua');
    await writeFile(
      script,
      [
        `wrk.headers["X-API-Key"] = "${KEY}"`,
        `local ids = {${ids.join(',')}}`,
        'request = function()',
        '  return wrk.format("GET", "/predict/precomputed/" .. ids[math.random(1, #ids)])',
        'end',
      ].join('\n'),
    );
    const entries: Record<string, string> = { here: await bundle(ROOT, 'here') };
    if (args.baseline) entries.base = await bundle(path.resolve(args.baseline), 'base');
    bundles.push(...Object.values(entries));

    const results = new Map<string, Record<string, number>[]>();
    // runs[1] is the published one now; each move serves the other.
    let flip = 1;
    for (let round = 0; round < ROUNDS; round++) {
      const order = MODES.map((_, i) => MODES[(i + round) % MODES.length]);
      for (const mode of order) {
        const [code, idle] = mode.split(':');
        const server = await startServer(entries[code], dataDir);
        try {
          await wrk(server.port, script, 2); // warm-up: JIT, connections
          let moves = 0;
          let moving = !idle;
          const mover = (async () => {
            while (moving) {
              await new Promise((r) => setTimeout(r, EVERY));
              if (!moving) break;
              flip = 1 - flip;
              await rollbackRun(deps, runs[flip], { actor: 'bench' });
              moves++;
            }
          })();
          await server.ask('reset', 'reset');
          const r = await wrk(server.port, script, DURATION);
          moving = false;
          await mover;
          const { stats } = (await server.ask('stats', 'stats')) as { stats: Record<string, number> };
          const row = { ...r, ...stats, moves };
          console.error(`round ${round + 1} ${mode}: ${JSON.stringify(row)}`);
          results.set(mode, [...(results.get(mode) ?? []), row]);
        } finally {
          await server.stop();
        }
      }
    }
    console.log(
      `\n${ids.length} predictions; pointer moved every ${EVERY} ms; wrk -t2 -c${CONNECTIONS} -d${DURATION}s; ${ROUNDS} rounds, median (min–max)\n`,
    );
    console.log('| mode | req/s | p50 ms | p90 ms | p99 ms | max ms | longest loop block ms | swaps |');
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
    for (const [mode, rows] of results) {
      const col = (k: string, d = 1) =>
        fmt(
          rows.map((r) => r[k]),
          d,
        );
      console.log(
        `| ${mode} | ${col('rps', 0)} | ${col('p50', 2)} | ${col('p90')} | ${col('p99')} | ${col('max')} | ${col('blockMs', 0)} | ${col('swaps', 0)} |`,
      );
    }
    await db.close();
    await store.close();
  } finally {
    for (const child of running) child.kill('SIGKILL');
    await host?.close();
    for (const b of bundles) await rm(path.dirname(b), { recursive: true, force: true });
    await rm(work, { recursive: true, force: true });
  }
}

// An interrupted run leaves no server behind (each also exits when its IPC channel closes).
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    for (const child of running) child.kill('SIGKILL');
    process.exit(130);
  });
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
