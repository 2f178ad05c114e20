/**
 * Benchmark of `GET /predict/markets/{id}`: the markets route served from memory (the serving views)
 * on the real folder store, wrk at 64 connections over ids spread across the file, in this process.
 * Prints throughput, latency percentiles, server CPU per request and RSS.
 *
 *   node --import tsx bench/markets.ts [--rows 5625] [--duration 10]
 *
 * Needs `wrk`.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import Fastify, { type FastifyInstance } from 'fastify';
import type { AppContext } from '../src/api/context.js';
import { registerAuth } from '../src/api/plugins/auth.js';
import { registerErrorHandling } from '../src/api/plugins/errors.js';
import { marketsRoutes } from '../src/api/routes/markets.js';
import { parseConfig } from '../src/config.js';
import { KEYS } from '../src/domain/index.js';
import { createLogger } from '../src/logger.js';
import { MARKETS_COLUMNS, type MarketsRow } from '../src/model/index.js';
import { createObjectStore, writeParquet } from '../src/storage/index.js';

const run = promisify(execFile);
const { values } = parseArgs({
  options: { rows: { type: 'string', default: '5625' }, duration: { type: 'string', default: '10' } },
});
const ROWS = Number(values.rows);
const DURATION = Number(values.duration);
const KEY = 'bench-key-0123456789abcdef';

const dir = await mkdtemp(path.join(tmpdir(), 'mc-bench-markets-'));
let app: FastifyInstance | null = null;
try {
  const config = parseConfig({ DATA_DIR: dir, API_KEY: KEY, LOG_LEVEL: 'silent' });
  const log = createLogger('silent');
  const store = createObjectStore(config, log);
  const rows: MarketsRow[] = Array.from({ length: ROWS }, (_, i) => ({
    match_id: i + 1,
    expected_home_goals: 0.8 + ((i * 37) % 100) / 60,
    expected_away_goals: 0.6 + ((i * 53) % 100) / 70,
    rho: -0.066,
    model_stage: i % 10 === 0 ? 'champion' : 'backtest',
    model_run_id: (i % 9).toString(16).repeat(32),
    training_cutoff: new Date('2023-06-01T00:00:00Z'),
    odd_over25: 1.9,
    odd_under25: 1.95,
    odd_btts_yes: 1.8,
    odd_btts_no: 2.0,
  }));
  await store.put(
    KEYS.markets.bucket,
    KEYS.markets.key,
    writeParquet(MARKETS_COLUMNS, rows as unknown as Record<string, unknown>[]),
  );
  app = Fastify({ logger: false }) as unknown as FastifyInstance;
  registerErrorHandling(app);
  registerAuth(app, { apiKey: KEY });
  const rss0 = process.memoryUsage().rss;
  const t0 = performance.now();
  await marketsRoutes(app, { config, log, store } as unknown as AppContext);
  const loadMs = performance.now() - t0;
  const rssLoaded = process.memoryUsage().rss;
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  const script = path.join(dir, 'markets.lua');
  await writeFile(
    script,
    [
      `wrk.headers["X-API-Key"] = "${KEY}"`,
      'local seeded = false',
      'request = function()',
      '  if not seeded then math.randomseed(os.time() + math.floor(os.clock() * 1e6)); seeded = true end',
      `  return wrk.format("GET", "/predict/markets/" .. math.random(1, ${ROWS}))`,
      'end',
    ].join('\n'),
  );
  const cpu0 = process.cpuUsage();
  // wrk runs as a child; this process only serves (await keeps the event loop free for requests).
  const { stdout } = await run(
    'wrk',
    ['-t2', '-c64', `-d${DURATION}s`, '--latency', '-s', script, `http://127.0.0.1:${port}`],
    { timeout: (DURATION + 30) * 1000 },
  );
  const cpu = process.cpuUsage(cpu0);
  const requests = Number(/(\d+) requests in/.exec(stdout)?.[1]);
  const pct = (p: string) =>
    /^\s+(\d+)%\s+(\S+)/m.test(stdout) ? new RegExp(`^\\s+${p}%\\s+(\\S+)`, 'm').exec(stdout)?.[1] : '?';
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? '0';
  console.log(
    JSON.stringify({
      rows: ROWS,
      load_ms: Math.round(loadMs),
      rss_mb_before: Math.round(rss0 / 2 ** 20),
      rss_mb_loaded: Math.round(rssLoaded / 2 ** 20),
      rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1]),
      p50: pct('50'),
      p90: pct('90'),
      p99: pct('99'),
      cpu_us_per_request: Math.round((cpu.user + cpu.system) / requests),
      non_2xx: Number(non2xx),
      load_average: (await import('node:os')).loadavg()[0],
    }),
  );
} finally {
  await app?.close();
  await rm(dir, { recursive: true, force: true });
}
