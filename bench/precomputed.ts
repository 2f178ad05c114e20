/**
 * Benchmark of `GET /predict/precomputed/{id}`: wrk at 64 connections, ids spread uniformly over all
 * matches, against a bare node:http server that sends the same body for each id and the same headers
 * (the app's security headers and an X-Request-Id; bench/precomputed-server.ts) — the fair limit —
 * measured in paired rounds of the same run, plus the API's resident memory with 45k matches loaded.
 * Budget: app throughput ≥ 0.7 × bare and p99 ≤ 1.3 × bare, median of the per-round ratios.
 *
 *   node --import tsx bench/precomputed.ts [--rows 45000] [--duration 10] [--rounds 6] [--modes app,fastify] [--no-paired] [--fresh] [--source]
 *
 * The servers run as compiled JavaScript (an esbuild bundle, plain node), as production does;
 * `--source` runs their TypeScript through tsx instead.
 *
 * Needs `wrk` (apt-get install -y wrk). Prints a Markdown table and a JSON summary.
 */
import { type ChildProcess, execFile, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { bundlePrecomputedServer, writePrecomputedData } from './precomputed-setup.js';

const run = promisify(execFile);
const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '45000' },
    duration: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '6' },
    connections: { type: 'string', default: '64' },
    threads: { type: 'string', default: '2' },
    modes: { type: 'string', default: 'app,app-quiet,fastify' },
    /** Extra node flags for the API server processes, e.g. `--max-semi-space-size=2`. */
    'node-flags': { type: 'string', default: '' },
    /** Accepted for older commands: compiled servers are now the default (see `--source`). */
    bundle: { type: 'boolean', default: false },
    /** Run the servers' TypeScript through tsx (development mode): tsx's loader alone costs ~2–3 µs per request. */
    source: { type: 'boolean', default: false },
    /** Leave glibc's malloc at its defaults instead of the `GLIBC_TUNABLES` that `npm start` and the image set. */
    'default-malloc': { type: 'boolean', default: false },
    /** Keep every server up and measure them back to back in each round (see `paired` below). */
    paired: { type: 'boolean', default: true },
    /**
     * With `--paired` (ignored without it: unpaired rounds always start fresh servers): start every
     * server afresh for each round. Identical server processes differ by up to ~15 % on a shared VM
     * (docs/benchmarks.md), so the median over rounds then spans processes too. The "after load test"
     * memory figure is then that of the last round's process.
     */
    fresh: { type: 'boolean', default: false },
    /**
     * Another checkout of this repository (e.g. a `git worktree` of the commit before a change): a mode
     * written `<mode>@base` runs that checkout's server of `<mode>`, in the same paired rounds as this
     * checkout's, so a change is measured against its parent with the same bare server and host spells.
     */
    baseline: { type: 'string' },
  },
  allowNegative: true,
});
// The servers run with the allocator settings the service ships with (package.json `start`, deploy/Dockerfile).
const SHIPPED_TUNABLES = /GLIBC_TUNABLES:-([^}]+)\}/.exec(
  JSON.parse(readFileSync(path.join(import.meta.dirname, '..', 'package.json'), 'utf8')).scripts.start,
)?.[1];
const SERVER_ENV =
  values['default-malloc'] || !SHIPPED_TUNABLES
    ? process.env
    : { ...process.env, GLIBC_TUNABLES: process.env.GLIBC_TUNABLES ?? SHIPPED_TUNABLES };
const ROWS = Number(values.rows);
const DURATION = Number(values.duration);
const ROUNDS = Number(values.rounds);
const CONNECTIONS = Number(values.connections);
const THREADS = Number(values.threads);
const MODES = String(values.modes).split(',');
const KEY = 'bench-key-0123456789abcdef';
// Production runs compiled JavaScript (`npm run build`, bin/matchcast.js): so do the servers, unless --source.
const COMPILED = !values.source;
const NODE_FLAGS = String(values['node-flags']).split(' ').filter(Boolean);
let serverEntry = path.join(import.meta.dirname, 'precomputed-server.ts');
let serverExecArgv = ['--import', 'tsx'];
const BASELINE = values.baseline ? path.resolve(values.baseline) : undefined;
let baselineEntry = BASELINE && path.join(BASELINE, 'bench', 'precomputed-server.ts');
const BASE_SUFFIX = '@base';

interface Mem {
  rssMb: number;
  heapUsedMb: number;
  externalMb: number;
  maxRssMb: number;
}
interface Server {
  port: number;
  ask(msg: string, field: string): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

/** Every server process still running: stopped at the end even when the benchmark fails. */
const running = new Set<ChildProcess>();

function startServer(mode: string, dataDir: string): Promise<Server> {
  const base = mode.endsWith(BASE_SUFFIX);
  if (base && !baselineEntry) throw new Error(`${mode} needs --baseline <checkout>`);
  const entry = base ? (baselineEntry as string) : serverEntry;
  const child = fork(entry, [base ? mode.slice(0, -BASE_SUFFIX.length) : mode, dataDir], {
    execArgv: mode === 'bare' ? serverExecArgv : [...serverExecArgv, ...NODE_FLAGS],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    env: SERVER_ENV,
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${mode} server did not start in 300 s`)), 300_000);
    child.once('exit', (code) => reject(new Error(`${mode} server exited with ${code}`)));
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
            child.once('exit', () => {
              running.delete(child);
              res();
            });
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

interface WrkResult {
  rps: number;
  /** Server CPU time per request, µs: robust to the machine being shared (throughput is not). */
  cpuUs: number;
  requests: number;
  p50: number;
  p90: number;
  p99: number;
  errors: string;
}

function toMs(v: string): number {
  const m = /^([\d.]+)(us|ms|s)$/.exec(v.trim());
  if (!m) return Number.NaN;
  const n = Number(m[1]);
  return m[2] === 'us' ? n / 1000 : m[2] === 's' ? n * 1000 : n;
}

async function wrk(port: number, script: string): Promise<WrkResult> {
  const args = [
    `-t${THREADS}`,
    `-c${CONNECTIONS}`,
    `-d${DURATION}s`,
    '--latency',
    '-s',
    script,
    `http://127.0.0.1:${port}`,
  ];
  const { stdout } = await run('wrk', args, { timeout: (DURATION + 30) * 1000 });
  const pct = (p: string) => toMs(new RegExp(`^\\s+${p}%\\s+(\\S+)`, 'm').exec(stdout)?.[1] ?? '');
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1];
  const sockErr = /Socket errors: (.*)/.exec(stdout)?.[1];
  return {
    cpuUs: Number.NaN,
    requests: Number(/(\d+) requests in/.exec(stdout)?.[1]),
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1]),
    p50: pct('50'),
    p90: pct('90'),
    p99: pct('99'),
    errors: [non2xx ? `non-2xx ${non2xx}` : '', sockErr ?? ''].filter(Boolean).join('; '),
  };
}

async function main(): Promise<void> {
  await run('wrk', ['--version']).catch((err: NodeJS.ErrnoException) => {
    // wrk --version exits 1 after printing its version; only a missing binary is fatal.
    if (err.code === 'ENOENT') throw new Error('wrk is not installed (apt-get install -y wrk)');
  });
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'matchcast-bench-precomputed-'));
  try {
    await writePrecomputedData(dataDir, ROWS);

    if (COMPILED) {
      serverEntry = await bundlePrecomputedServer(path.join(import.meta.dirname, '..'), 'here');
      if (BASELINE) baselineEntry = await bundlePrecomputedServer(BASELINE, 'base');
      serverExecArgv = [];
    }

    const script = path.join(dataDir, 'precomputed.lua');
    await writeFile(
      script,
      [
        `wrk.headers["X-API-Key"] = "${KEY}"`,
        'local seeded = false',
        'request = function()',
        '  if not seeded then math.randomseed(os.time() + math.floor(os.clock() * 1e6)); seeded = true end',
        `  return wrk.format("GET", "/predict/precomputed/" .. math.random(1, ${ROWS}))`,
        'end',
      ].join('\n'),
    );

    const results: Record<string, WrkResult[]> = { bare: [] };
    for (const m of MODES) results[m] = [];
    const memory: Record<string, Mem | Record<string, unknown>> = {};

    const measure = async (mode: string, server: Server, round: number) => {
      const cpu0 = (await server.ask('cpu', 'cpu')).cpu as number;
      const r = await wrk(server.port, script);
      const cpu1 = (await server.ask('cpu', 'cpu')).cpu as number;
      r.cpuUs = (cpu1 - cpu0) / r.requests;
      results[mode].push(r);
      process.stderr.write(
        `round ${round + 1} ${mode}: ${r.rps.toFixed(0)} req/s p50 ${r.p50} ms p99 ${r.p99} ms cpu ${r.cpuUs.toFixed(1)} µs/req ${r.errors}\n`,
      );
    };

    if (values.paired) {
      // Every server runs for the whole benchmark (an idle one costs no CPU); each round measures them
      // back to back in a rotated order, so a slow spell of a shared host hits the bare server and the
      // app of the same round alike, and the per-round ratio is the figure to trust.
      const servers = new Map<string, Server>();
      for (const mode of ['bare', ...MODES]) {
        const server = await startServer(mode, dataDir);
        servers.set(mode, server);
        if (mode !== 'bare')
          memory[`${mode}: loaded, before load test`] = (await server.ask('mem', 'mem')).mem as Mem;
        await wrk(server.port, script).catch(() => undefined); // warm-up: JIT, connections
      }
      const order = ['bare', ...MODES];
      for (let round = 0; round < ROUNDS; round++) {
        if (values.fresh && round > 0) {
          for (const [mode, server] of servers) {
            await server.stop();
            const next = await startServer(mode, dataDir);
            servers.set(mode, next);
            await wrk(next.port, script).catch(() => undefined);
          }
        }
        const rotated = [...order.slice(round % order.length), ...order.slice(0, round % order.length)];
        for (const mode of rotated) await measure(mode, servers.get(mode)!, round);
      }
      const app = servers.get('app');
      if (app) {
        memory['app: after load test'] = (await app.ask('mem', 'mem')).mem as Mem;
        memory['app: after a full reload (two copies briefly)'] = (await app.ask('reload', 'reloaded'))
          .mem as Mem;
      }
      for (const server of servers.values()) await server.stop();
    } else {
      for (let round = 0; round < ROUNDS; round++) {
        for (const mode of ['bare', ...MODES]) {
          const server = await startServer(mode, dataDir);
          if (round === 0 && mode !== 'bare')
            memory[`${mode}: loaded, before load test`] = (await server.ask('mem', 'mem')).mem as Mem;
          // Warm-up (JIT, connection pools) then the measured run.
          await wrk(server.port, script).catch(() => undefined);
          await measure(mode, server, round);
          if (round === 0 && mode === 'app') {
            memory['app: after load test'] = (await server.ask('mem', 'mem')).mem as Mem;
            memory['app: after a full reload (two copies briefly)'] = (await server.ask('reload', 'reloaded'))
              .mem as Mem;
          }
          await server.stop();
        }
      }
    }

    const median = (xs: number[]) => {
      const v = [...xs].sort((a, b) => a - b);
      return v.length % 2 ? v[(v.length - 1) / 2]! : (v[v.length / 2 - 1]! + v[v.length / 2]!) / 2;
    };
    const spread = (xs: number[], digits: number, scale = 1) =>
      `${(Math.min(...xs) * scale).toFixed(digits)}–${(Math.max(...xs) * scale).toFixed(digits)}`;
    const minCpu = (rs: WrkResult[]) => Math.min(...rs.map((r) => r.cpuUs));
    const bareCpu = minCpu(results.bare);
    /** Per-round ratios to the bare server measured in the same round (the figures the budget reads). */
    const ratios = (mode: string, field: 'rps' | 'p99') =>
      results[mode]!.map((x, i) => x[field] / (results.bare[i]?.[field] ?? Number.NaN));
    const lines = [
      `| server | req/s, median (min–max of ${ROUNDS}) | vs bare, median of rounds (min–max) | p50 ms, median | p99 ms, median (min–max) | p99 vs bare, median of rounds (min–max) | server CPU µs/req (min) | bare/this CPU | errors |`,
      '|---|---:|---:|---:|---:|---:|---:|---:|---|',
    ];
    for (const mode of ['bare', ...MODES]) {
      const rs = results[mode]!;
      const rps = rs.map((r) => r.rps);
      const p99 = rs.map((r) => r.p99);
      const tput = ratios(mode, 'rps');
      const tail = ratios(mode, 'p99');
      const errors = [...new Set(rs.map((r) => r.errors).filter(Boolean))].join('; ');
      lines.push(
        `| ${mode} | ${median(rps).toFixed(0)} (${spread(rps, 0)}) | ${(median(tput) * 100).toFixed(0)} % (${spread(tput, 0, 100)} %) | ${median(rs.map((r) => r.p50)).toFixed(2)} | ${median(p99).toFixed(2)} (${spread(p99, 2)}) | ${median(tail).toFixed(2)}× (${spread(tail, 2)}) | ${minCpu(rs).toFixed(1)} | ${((bareCpu / minCpu(rs)) * 100).toFixed(0)} % | ${errors || '—'} |`,
      );
    }
    if (results.app?.length) {
      const tput = median(ratios('app', 'rps'));
      const tail = median(ratios('app', 'p99'));
      lines.push(
        '',
        `budget (app vs bare, median of per-round ratios): throughput ${tput.toFixed(2)}× (≥ 0.70: ${tput >= 0.7 ? 'met' : 'NOT met'}), p99 ${tail.toFixed(2)}× (≤ 1.30: ${tail <= 1.3 ? 'met' : 'NOT met'})`,
      );
    }
    console.log(lines.join('\n'));
    console.log('\nmemory:');
    for (const [k, v] of Object.entries(memory)) console.log(`- ${k}: ${JSON.stringify(v)}`);
    console.log(
      `\nJSON ${JSON.stringify({ rows: ROWS, duration: DURATION, connections: CONNECTIONS, compiled: COMPILED, results, memory })}`,
    );
  } finally {
    for (const child of running) child.kill('SIGTERM');
    await rm(dataDir, { recursive: true, force: true });
    if (COMPILED) await rm(path.dirname(serverEntry), { recursive: true, force: true });
    if (COMPILED && BASELINE && baselineEntry)
      await rm(path.dirname(baselineEntry), { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
