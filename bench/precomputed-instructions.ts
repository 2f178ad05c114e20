/**
 * Instructions per request of `GET /predict/precomputed/{id}`, counted by valgrind's callgrind: a
 * figure that does not move with the host the way throughput and CPU time do on a shared VM (the same
 * server measured twice in `bench/precomputed.ts` differs by ±15 %). User-space instructions only (the
 * kernel's socket work is the same for every mode), per thread: the main thread is what bounds
 * throughput. Every mode's server runs at once under valgrind (the counts do not depend on load).
 *
 *   node --import tsx bench/precomputed-instructions.ts [--modes fastify,app] [--baseline <checkout>]
 *     [--rows 1000] [--warmup 150] [--duration 40] [--connections 8] [--keep]
 *
 * The modes are those of bench/precomputed-server.ts; `<mode>@base` runs that mode from the checkout
 * given by `--baseline`. Needs valgrind and wrk (apt-get install -y valgrind wrk). Counting starts
 * after the warm-up (JIT tiers, the views' start-up compression, connection set-up). Under valgrind
 * an app server needs minutes to reach its steady state: with more than about three modes at once on
 * two cores, or a short warm-up, the "all threads" column stays several times the main thread's
 * (compilers and compression still running) and the counts are not yet comparable.
 */
import { type ChildProcess, execFile, fork } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { bundlePrecomputedServer, writePrecomputedData } from './precomputed-setup.js';

const run = promisify(execFile);
const { values } = parseArgs({
  options: {
    modes: { type: 'string', default: 'fastify,app' },
    baseline: { type: 'string' },
    rows: { type: 'string', default: '1000' },
    warmup: { type: 'string', default: '150' },
    duration: { type: 'string', default: '40' },
    connections: { type: 'string', default: '8' },
    /** Keep each server's callgrind files (for callgrind_annotate) and print where they are. */
    keep: { type: 'boolean', default: false },
  },
});
const MODES = String(values.modes).split(',');
const ROWS = Number(values.rows);
const KEY = 'bench-key-0123456789abcdef';
const BASE_SUFFIX = '@base';
const ROOT = path.join(import.meta.dirname, '..');
const BASELINE = values.baseline ? path.resolve(values.baseline) : undefined;

/** Every server still running: stopped at the end even when the benchmark fails. */
const running = new Set<ChildProcess>();

interface Counted {
  mode: string;
  requests: number;
  /** Instructions of the main thread, of every thread. */
  main: number;
  all: number;
  threads: number;
}

async function measure(mode: string, entry: string, dataDir: string, script: string): Promise<Counted> {
  const outDir = await mkdtemp(path.join(os.tmpdir(), 'matchcast-cg-'));
  const serverMode = mode.endsWith(BASE_SUFFIX) ? mode.slice(0, -BASE_SUFFIX.length) : mode;
  const child = fork(entry, [serverMode, dataDir], {
    execPath: 'valgrind',
    execArgv: [
      '--tool=callgrind',
      '--smc-check=all-non-file',
      '--instr-atstart=no',
      '--separate-threads=yes',
      `--callgrind-out-file=${outDir}/cg.out`,
      process.execPath,
    ],
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
  });
  running.add(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${mode}: no port in 600 s`)), 600_000);
      child.once('exit', (code) => reject(new Error(`${mode} exited with ${code}`)));
      child.on('message', (msg: { port?: number }) => {
        if (msg.port) {
          clearTimeout(timer);
          resolve(msg.port);
        }
      });
    });
    const wrk = async (seconds: string, strict: boolean) => {
      const { stdout } = await run(
        'wrk',
        [
          '-t1',
          `-c${values.connections}`,
          `-d${seconds}s`,
          '--timeout',
          '60s',
          '-s',
          script,
          `http://127.0.0.1:${port}`,
        ],
        { timeout: (Number(seconds) + 180) * 1000 },
      );
      if (strict && /Non-2xx|Socket errors/.test(stdout))
        throw new Error(`${mode}: errors during the run\n${stdout}`);
      return Number(/(\d+) requests in/.exec(stdout)?.[1]);
    };
    // Under valgrind the first seconds are slow (every JIT tier is translated again): errors are let pass.
    await wrk(String(values.warmup), false);
    await run('callgrind_control', ['-i', 'on', String(child.pid)]);
    const requests = await wrk(String(values.duration), true);
    // A dump of what was counted since instrumentation went on (files apart from the exit dump).
    await run('callgrind_control', ['-d', 'measured', String(child.pid)]);
    child.kill('SIGTERM');
    await exited;
    let main = 0;
    let all = 0;
    let threads = 0;
    for (const file of await readdir(outDir)) {
      const text = await readFile(path.join(outDir, file), 'utf8');
      if (!/^desc: Trigger: .*measured/m.test(text)) continue;
      const total = Number(/^(?:summary|totals): (\d+)/m.exec(text)?.[1] ?? 0);
      all += total;
      threads++;
      if (/^thread: 1$/m.test(text)) main = total; // thread 1 is the main thread
    }
    return { mode, requests, main, all, threads };
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    running.delete(child);
    if (values.keep) console.error(`${mode}: callgrind files in ${outDir}`);
    else await rm(outDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  for (const [tool, args] of [
    ['valgrind', ['--version']],
    ['wrk', ['--version']],
  ] as const) {
    await run(tool, [...args]).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT')
        throw new Error(`${tool} is not installed (apt-get install -y valgrind wrk)`);
    });
  }
  if (MODES.some((m) => m.endsWith(BASE_SUFFIX)) && !BASELINE) throw new Error('@base modes need --baseline');
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'matchcast-bench-cg-'));
  const bundles: string[] = [];
  try {
    await writePrecomputedData(dataDir, ROWS);
    const script = path.join(dataDir, 'precomputed.lua');
    await writeFile(
      script,
      [
        `wrk.headers["X-API-Key"] = "${KEY}"`,
        'math.randomseed(42)',
        `request = function() return wrk.format("GET", "/predict/precomputed/" .. math.random(1, ${ROWS})) end`,
      ].join('\n'),
    );
    const here = await bundlePrecomputedServer(ROOT, 'here');
    bundles.push(here);
    const base = BASELINE ? await bundlePrecomputedServer(BASELINE, 'base') : undefined;
    if (base) bundles.push(base);
    const counted = await Promise.all(
      ['bare', ...MODES].map((m) =>
        measure(m, m.endsWith(BASE_SUFFIX) ? (base as string) : here, dataDir, script),
      ),
    );
    const bare = counted[0] as Counted;
    const perReq = (c: Counted, n: number) => n / c.requests;
    console.log(
      '| server | requests counted | instructions/req, main thread | all threads | threads | bare/this (main) |',
    );
    console.log('|---|---:|---:|---:|---:|---:|');
    for (const c of counted) {
      console.log(
        `| ${c.mode} | ${c.requests} | ${Math.round(perReq(c, c.main))} | ${Math.round(perReq(c, c.all))} | ${c.threads} | ${((100 * perReq(bare, bare.main)) / perReq(c, c.main)).toFixed(1)} % |`,
      );
    }
    console.log(`JSON ${JSON.stringify({ rows: ROWS, counted })}`);
  } finally {
    for (const child of running) child.kill('SIGKILL');
    for (const b of bundles) await rm(path.dirname(b), { recursive: true, force: true });
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
