// A distributed matchcast on this machine for the operations tests: real `matchcast` processes (serve,
// worker, ingest, pipeline, registry) over PostgreSQL (a unique schema), Redis (a unique queue name, or
// a private redis-server that a test can stop) and s3rver (restartable on the same port and folder).
// Every process started here is killed by `Cluster.close()`, also when a test fails.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { signalGroup, spawnGroup } from './process-group.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/matchcast.js');
/** The `matchcast` executable of this checkout (run with `process.execPath`). */
export const MATCHCAST_BIN = BIN;

export const PG_URL = process.env.DATABASE_URL;
export const REDIS_URL = process.env.REDIS_URL;
/**
 * Why the distributed tests are skipped, or false when PostgreSQL and Redis are configured. They start
 * real processes (30–60 s a file): `MATCHCAST_SKIP_OPS=1` skips them in a quick run.
 */
export const CLUSTER_SKIP: string | false =
  process.env.MATCHCAST_SKIP_OPS === '1'
    ? 'MATCHCAST_SKIP_OPS=1: distributed operations tests skipped'
    : (!PG_URL || !REDIS_URL) && 'DATABASE_URL and REDIS_URL not set: distributed operations tests skipped';

export const API_KEY = 'ops-test-key-0123456789abcdef';

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
}

/** A free TCP port on 127.0.0.1 (bound then released). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Polls `check` every `everyMs` until it returns a truthy value or `timeoutMs` passes (then throws). */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs: number,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
      last = `last check gave ${JSON.stringify(value)?.slice(0, 300)}`;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`,
      );
    }
    await sleep(everyMs);
  }
}

/** A child process with its output kept (the last 256 KB). */
export interface Proc {
  readonly name: string;
  readonly child: ChildProcess;
  output(): string;
  /** Standard output alone (e.g. a `--json` document). */
  stdout(): string;
  readonly exited: Promise<number | null>;
  running(): boolean;
  /** Sends `signal` (default SIGTERM) and waits for the exit, SIGKILL after `graceMs` (default 15 s). */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<number | null>;
}

const live = new Set<Proc>();

/** Spawns a process in its own process group so that a kill reaches anything it started. */
export function spawnProc(name: string, cmd: string, args: string[], env: Record<string, string>): Proc {
  const child = spawnGroup(cmd, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let stdout = '';
  const keep = (d: Buffer) => {
    out += d.toString();
    if (out.length > 262_144) out = out.slice(-131_072);
  };
  child.stdout?.on('data', (d: Buffer) => {
    if (stdout.length < 1_048_576) stdout += d.toString();
    keep(d);
  });
  child.stderr?.on('data', keep);
  const exited = new Promise<number | null>((resolve) => {
    child.on('exit', (code, signal) => resolve(code ?? (signal ? -1 : null)));
    child.on('error', () => resolve(-1));
  });
  const proc: Proc = {
    name,
    child,
    output: () => out,
    stdout: () => stdout,
    exited,
    running: () => child.exitCode === null && child.signalCode === null,
    async stop(signal = 'SIGTERM', graceMs = 15_000) {
      if (proc.running()) signalGroup(child, signal);
      const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), graceMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
  live.add(proc);
  exited.then(() => live.delete(proc));
  return proc;
}

/**
 * The exit code of `proc`, or 'hung' when it has not exited within `ms`. The timer is cleared once the
 * process exits: a pending one would keep the test file's process alive for the rest of `ms`.
 */
export async function exitWithin(proc: Proc, ms: number): Promise<number | null | 'hung'> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<'hung'>((resolve) => {
    timer = setTimeout(() => resolve('hung'), ms);
  });
  try {
    return await Promise.race([proc.exited, hung]);
  } finally {
    clearTimeout(timer);
  }
}

/** SIGKILLs every process this module started that is still running (last-resort cleanup). */
export async function killAll(): Promise<void> {
  await Promise.all([...live].map((p) => p.stop('SIGKILL', 2000)));
}

/** Waits until `pattern` appears in the output; throws with the output when the process exits first. */
export async function waitForOutput(proc: Proc, pattern: RegExp, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pattern.test(proc.output())) {
    if (!proc.running())
      throw new Error(`${proc.name} exited before ${pattern}:\n${proc.output().slice(-4000)}`);
    if (Date.now() > deadline)
      throw new Error(`${proc.name}: no ${pattern} within ${timeoutMs} ms:\n${proc.output().slice(-4000)}`);
    await sleep(50);
  }
}

/** Runs `matchcast <args>` to completion (bounded) and returns its exit code and output. */
export async function runCli(
  args: string[],
  env: Record<string, string>,
  timeoutMs = 60_000,
): Promise<{ code: number | null; out: string; stdout: string }> {
  const proc = spawnProc(`matchcast ${args.join(' ')}`, process.execPath, [BIN, ...args], env);
  const timer = setTimeout(() => signalGroup(proc.child, 'SIGKILL'), timeoutMs);
  try {
    const code = await proc.exited;
    return { code, out: proc.output(), stdout: proc.stdout() };
  } finally {
    clearTimeout(timer);
  }
}

/** A private redis-server (no persistence) that a test can stop and start again on the same port. */
export interface PrivateRedis {
  url: string;
  port: number;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let proc: Proc | undefined;
  const redis: PrivateRedis = {
    url: `redis://127.0.0.1:${port}`,
    port,
    async start() {
      proc = spawnProc(
        'redis-server',
        'redis-server',
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--save',
          '',
          '--appendonly',
          'no',
          '--daemonize',
          'no',
        ],
        {
          PATH: process.env.PATH ?? '',
        },
      );
      await waitForOutput(proc, /Ready to accept connections/, 10_000);
    },
    async stop() {
      await proc?.stop('SIGKILL', 2000);
      proc = undefined;
    },
  };
  await redis.start();
  return redis;
}

/** A TCP forwarder to `target` that can be switched off (refuses and cuts connections) and on again. */
export interface TcpProxy {
  port: number;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Cuts open connections; new ones are accepted but never answered (a hung server), until `forward()`. */
  blackhole(): void;
  forward(): void;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const port = await freePort();
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  let hung = false;
  const proxy: TcpProxy = {
    port,
    blackhole() {
      hung = true;
      for (const socket of sockets) socket.destroy();
      sockets.clear();
    },
    forward() {
      hung = false;
    },
    async start() {
      server = net.createServer((client) => {
        if (hung) {
          sockets.add(client);
          client.on('error', () => client.destroy());
          return;
        }
        const upstream = net.connect(targetPort, targetHost);
        sockets.add(client);
        sockets.add(upstream);
        const drop = () => {
          client.destroy();
          upstream.destroy();
          sockets.delete(client);
          sockets.delete(upstream);
        };
        client.on('error', drop).on('close', drop);
        upstream.on('error', drop).on('close', drop);
        client.pipe(upstream).pipe(client);
      });
      await new Promise<void>((resolve) => server?.listen(port, '127.0.0.1', resolve));
    },
    async stop() {
      const s = server;
      server = undefined;
      for (const socket of sockets) socket.destroy();
      sockets.clear();
      if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
    },
  };
  await proxy.start();
  return proxy;
}

interface S3rverInstance {
  run(): Promise<{ address: string; port: number }>;
  close(): Promise<void>;
  httpServer?: { closeAllConnections?: () => void };
}
type S3rverCtor = new (options: Record<string, unknown>) => S3rverInstance;

/**
 * s3rver on a fixed port and folder, so that it can be stopped and started with its objects intact
 * (while it is stopped, connections to its port are refused).
 */
export interface RestartableS3 {
  endpoint: string;
  directory: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Stops s3rver for good. */
  close(): Promise<void>;
}

export async function startRestartableS3(): Promise<RestartableS3> {
  const directory = mkdtempSync(path.join(tmpdir(), 'mc-ops-s3-'));
  const port = await freePort();
  // s3rver ships no type declarations; a computed specifier keeps the compiler from looking for them.
  const specifier = 's3rver';
  const { default: S3rver } = (await import(specifier)) as { default: S3rverCtor };
  let server: S3rverInstance | undefined;
  const s3: RestartableS3 = {
    endpoint: `http://127.0.0.1:${port}`,
    directory,
    async start() {
      server = new S3rver({ address: '127.0.0.1', port, silent: true, directory });
      await server.run();
    },
    async stop() {
      const s = server;
      server = undefined;
      if (!s) return;
      const closed = s.close();
      // Clients keep connections alive (the API polls every VIEW_REFRESH_MS): cut them, or close() waits.
      s.httpServer?.closeAllConnections?.();
      await closed;
    },
    async close() {
      await s3.stop();
    },
  };
  await s3.start();
  return s3;
}

/** An HTTP response read whole: status, headers and body text (JSON parsed when it is JSON). */
export interface Res {
  status: number;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: test bodies are inspected field by field
  json: any;
  ms: number;
}

/** GET with the API key, bounded by `timeoutMs`; a network failure throws. */
export async function get(base: string, url: string, timeoutMs = 40_000): Promise<Res> {
  const started = performance.now();
  const res = await fetch(`${base}${url}`, {
    headers: { 'x-api-key': API_KEY },
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json, ms: performance.now() - started };
}

export async function post(base: string, url: string, body: unknown, timeoutMs = 10_000): Promise<Res> {
  const started = performance.now();
  const res = await fetch(`${base}${url}`, {
    method: 'POST',
    headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json, ms: performance.now() - started };
}

/** Options of {@link startCluster}. */
export interface ClusterOptions {
  apis?: number;
  workers?: number;
  /** A private redis-server the test may stop (default: the shared REDIS_URL with a unique queue). */
  privateRedis?: boolean;
  /** Route PostgreSQL through a TCP proxy the test may stop. Default false. */
  pgProxy?: boolean;
  /** Extra settings for every process. */
  env?: Record<string, string>;
  /** Extra settings of API number i (e.g. a dead CACHE_URL for one of them). */
  apiEnv?: Array<Record<string, string>>;
  /** Train a second model version (challenger-style, not champion). Default false. */
  secondVersion?: boolean;
}

export interface Cluster {
  env: Record<string, string>;
  schema: string;
  queueName: string;
  s3: RestartableS3;
  redis?: PrivateRedis;
  pgProxy?: TcpProxy;
  apis: Api[];
  workers: Proc[];
  /** Match ids of the predictions file. */
  matchIds: number[];
  /**
   * Its future matches (after every model's cut-off): live answers for them come from the model itself,
   * never from a walk-forward row, so their `model_run_id` is the alias's run.
   */
  futureMatchIds: number[];
  /** `matchcast <args>` with the cluster's settings. */
  cli(
    args: string[],
    extraEnv?: Record<string, string>,
    timeoutMs?: number,
  ): Promise<{ code: number | null; out: string; stdout: string }>;
  startApi(extraEnv?: Record<string, string>, port?: number): Promise<Api>;
  startWorker(extraEnv?: Record<string, string>): Promise<Proc>;
  close(): Promise<void>;
}

export interface Api {
  proc: Proc;
  port: number;
  base: string;
}

/**
 * Seeds a fresh distributed stack: schema, queue, s3rver; `matchcast ingest --synthetic`, `pipeline run`,
 * `registry promote`, `pipeline predict` (the first run has no champion to predict with); then starts
 * the APIs and workers and waits until every API serves predictions.
 */
export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  if (!PG_URL || !REDIS_URL) throw new Error('DATABASE_URL and REDIS_URL are required');
  const schema = uniqueName('ops');
  const queueName = uniqueName('ops_q');
  const dataDir = mkdtempSync(path.join(tmpdir(), 'mc-ops-data-'));
  const admin = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 5000 });
  await admin.connect();
  await admin.query(`CREATE SCHEMA "${schema}"`);
  await admin.end();

  const cleanups: Array<() => Promise<void>> = [];
  const cluster = { schema, queueName, apis: [] as Api[], workers: [] as Proc[] } as unknown as Cluster;
  try {
    const s3 = await startRestartableS3();
    cleanups.push(async () => {
      await s3.close().catch(() => undefined);
      rmSync(s3.directory, { recursive: true, force: true });
    });
    cluster.s3 = s3;
    let redisUrl = REDIS_URL;
    if (options.privateRedis) {
      const redis = await startPrivateRedis();
      cleanups.push(() => redis.stop());
      cluster.redis = redis;
      redisUrl = redis.url;
    }
    const pgUrl = new URL(PG_URL);
    if (options.pgProxy) {
      const proxy = await startTcpProxy(pgUrl.hostname, Number(pgUrl.port || 5432));
      cleanups.push(() => proxy.stop());
      cluster.pgProxy = proxy;
      pgUrl.hostname = '127.0.0.1';
      pgUrl.port = String(proxy.port);
    }
    // A startup option of the connection: every process works in the test's schema.
    pgUrl.searchParams.set('options', `-csearch_path=${schema}`);

    cluster.env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? tmpdir(),
      DATA_DIR: dataDir,
      DATABASE_URL: pgUrl.toString(),
      REDIS_URL: redisUrl,
      QUEUE_NAME: queueName,
      S3_ENDPOINT: s3.endpoint,
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
      S3_BUCKET_PREFIX: `${schema.replaceAll('_', '-')}-`,
      API_KEY,
      URL_SIGNING_SECRET: 'ops-test-signing-secret-0123456789',
      LOG_LEVEL: 'info',
      VIEW_REFRESH_MS: '500',
      ALIAS_REFRESH_MS: '1000',
      SHUTDOWN_TIMEOUT_MS: '5000',
      PREDICT_TIMEOUT_MS: '10000',
      NO_COLOR: '1',
      ...options.env,
    };
    cluster.cli = (args, extraEnv = {}, timeoutMs = 90_000) =>
      runCli(args, { ...cluster.env, LOG_LEVEL: 'warn', ...extraEnv }, timeoutMs);
    cluster.startApi = async (extraEnv = {}, fixedPort?: number) => {
      const port = fixedPort ?? (await freePort());
      const proc = spawnProc(`api:${port}`, process.execPath, [BIN, 'serve'], {
        ...cluster.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        ...extraEnv,
      });
      await waitForOutput(proc, /"msg":"listening"/, 45_000);
      const api = { proc, port, base: `http://127.0.0.1:${port}` };
      return api;
    };
    cluster.startWorker = async (extraEnv = {}) => {
      const proc = spawnProc(`worker${cluster.workers.length}`, process.execPath, [BIN, 'worker'], {
        ...cluster.env,
        ...extraEnv,
      });
      await waitForOutput(proc, /worker started/, 45_000);
      return proc;
    };
    cleanups.push(async () => {
      await Promise.all(
        [...cluster.apis.map((a) => a.proc), ...cluster.workers].map((p) => p.stop('SIGKILL', 2000)),
      );
    });

    // Seed: data, first model (candidate), operator sign-off, predictions with the champion.
    const step = async (args: string[]) => {
      const r = await cluster.cli(args);
      if (r.code !== 0)
        throw new Error(`matchcast ${args.join(' ')} exited ${r.code}:\n${r.out.slice(-4000)}`);
      return r.out;
    };
    await step(['ingest', '--synthetic', '--regions', '2', '--teams', '6', '--seasons', '2', '--seed', '7']);
    await step(['pipeline', 'run', '--json']);
    // The promotion guard may hold the first version back (it must beat the opening line on a small
    // synthetic league): the operator then signs version 1 off directly, as `matchcast start` does.
    const promoted = await cluster.cli(['registry', 'promote', '--reason', 'ops test sign-off']);
    if (promoted.code !== 0)
      await step(['registry', 'alias', 'set', 'champion', '1', '--reason', 'ops test sign-off']);
    // A stand-alone `pipeline predict` writes a draft run (src/runs); a full run publishes predictions.
    await step(['pipeline', 'run', '--json']);
    if (options.secondVersion) await step(['pipeline', 'train', '--family', 'ordered_logit', '--json']);

    const [apis, workers] = await Promise.all([
      Promise.all(Array.from({ length: options.apis ?? 2 }, (_, i) => cluster.startApi(options.apiEnv?.[i]))),
      Promise.all(Array.from({ length: options.workers ?? 2 }, () => cluster.startWorker())),
    ]);
    cluster.apis.push(...apis);
    cluster.workers.push(...workers);
    const first = await waitFor(
      'predictions on every API',
      async () => {
        const all = await Promise.all(cluster.apis.map((a) => get(a.base, '/predict/predictions/')));
        if (all.every((r) => r.status === 200 && Array.isArray(r.json) && r.json.length > 0)) return all[0];
        throw new Error(all.map((r) => `${r.status} ${r.text.slice(0, 200)}`).join(' | '));
      },
      45_000,
      250,
    );
    const rows = first.json as Array<{ match_id: number; is_future: boolean | null }>;
    cluster.matchIds = rows.map((r) => r.match_id);
    cluster.futureMatchIds = rows.filter((r) => r.is_future === true).map((r) => r.match_id);
  } catch (err) {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
    // Processes of a start that failed half-way are not in cluster.apis/workers yet.
    await killAll();
    rmSync(dataDir, { recursive: true, force: true });
    await dropSchema(schema).catch(() => undefined);
    throw err;
  }
  cluster.close = async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
    await killAll();
    rmSync(dataDir, { recursive: true, force: true });
    await dropSchema(schema).catch(() => undefined);
    await clearQueue(REDIS_URL, queueName).catch(() => undefined);
  };
  return cluster;
}

export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** Removes the BullMQ keys of a test queue from the shared Redis. */
export async function clearQueue(redisUrl: string, queueName: string): Promise<void> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(redisUrl, { lazyConnect: true, connectTimeout: 2000, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    for (const pattern of [`bull:${queueName}:*`, `*${queueName}*`]) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
        cursor = next;
        if (keys.length) await redis.del(...keys);
      } while (cursor !== '0');
    }
  } finally {
    redis.disconnect();
  }
}
