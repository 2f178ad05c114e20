import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { type Config, parseConfig } from '../config.js';
import { MatchesRepository } from '../db/index.js';
import { isMatchcastError } from '../domain/index.js';
import { ingestPath, ingestSynthetic } from '../ingest/index.js';
import { createLogger } from '../logger.js';
import { bootstrapFirstRun, firstStartDone } from '../pipeline/index.js';
import { markAbandonedRuns } from '../runs/index.js';
import { openRuntime } from '../runtime.js';
import { ADMIN_KEY_FILE } from './admin-key.js';
import {
  checkDataset,
  datasetSource,
  readDatasetRecord,
  resetEmbeddedState,
  writeDatasetRecord,
} from './dataset-record.js';
import { replayCommand } from './replay.js';
import { serveEmbedded } from './serve-embedded.js';
import { portOption } from './usage-error.js';

const HELP = `matchcast start — the whole service in one process, with embedded defaults

  --data <path>   ingest real CSVs (shared-data or football-data.co.uk format) instead of synthetic data
  --port <n>      port (default PORT or 8000)
  --host <addr>   interface to listen on (default HOST, else 127.0.0.1: this machine only; 0.0.0.0 for
                  every interface)
  --reset         delete DATA_DIR's embedded state (database, objects, models) first, e.g. to switch
                  data sets; the API key stays
  --as-of <date>  replay: serve as if "now" were <date> (needs --data); later matches are fixtures that
                  receive their odds and results as the clock passes them (docs/operations.md)
  --speed <n>     replay: simulated seconds per real second (default 1; 0 freezes the clock)

While it serves, \`matchcast ingest\` and \`matchcast pipeline\` from another shell run inside this
server (the embedded database admits one process); PIPELINE_SCHEDULE runs \`pipeline run\` on a schedule.

On first start (empty database / registry) it ingests data, runs the pipeline, signs off the first
candidate as champion and registers a challenger. The API key is API_KEY, or one generated into
DATA_DIR/api-key; the admin key (X-Admin-Key, for /admin/*: the CLI's hand-off) is ADMIN_KEY, or one
generated into DATA_DIR/admin-key (both readable by their owner only).`;

/**
 * A key of an embedded install: `configured` when set, else a random key generated once into
 * `<DATA_DIR>/<file>`, readable by the owner only (0600).
 */
async function embeddedKey(config: Config, file: string, configured: string | undefined): Promise<string> {
  if (configured) return configured;
  const at = path.join(config.dataDir, file);
  try {
    const key = (await readFile(at, 'utf8')).trim();
    if (key.length >= 16) return key;
  } catch {
    // absent: generate below
  }
  const key = randomBytes(32).toString('hex');
  await mkdir(config.dataDir, { recursive: true });
  await writeFile(at, `${key}\n`, { mode: 0o600 });
  return key;
}

/** The API key of an embedded install: API_KEY, or a random key generated once and kept under DATA_DIR. */
export function embeddedApiKey(config: Config): Promise<string> {
  return embeddedKey(config, 'api-key', config.apiKey);
}

/**
 * The admin key of an embedded install (`/admin/*`, used by the CLI to hand jobs to the server):
 * ADMIN_KEY, or a random key generated once into `<DATA_DIR>/admin-key`, owner-only.
 */
export function embeddedAdminKey(config: Config): Promise<string> {
  return embeddedKey(config, ADMIN_KEY_FILE, config.adminKey);
}

/**
 * The environment `start` reads its settings from: `--port` and `--host` win over PORT and HOST, and
 * without either it listens on 127.0.0.1 only (`serve`, in containers, keeps HOST's default 0.0.0.0).
 */
export function startEnv(
  env: Record<string, string | undefined>,
  options: { port?: string; host?: string },
): Record<string, string | undefined> {
  return {
    ...env,
    ...(options.port !== undefined ? { PORT: portOption('port', options.port) } : {}),
    HOST: options.host ?? env.HOST ?? '127.0.0.1',
  };
}

/** `matchcast start`: embedded stack, first-run bootstrap, then serve on PORT (8000). */
export async function startCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      data: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      reset: { type: 'boolean' },
      'as-of': { type: 'string' },
      speed: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  const base = parseConfig(startEnv(process.env, { port: values.port, host: values.host }));
  const config: Config = {
    ...base,
    apiKey: await embeddedApiKey(base),
    adminKey: await embeddedAdminKey(base),
  };
  const log = createLogger(config.logLevel, 'matchcast');
  if (values.reset) {
    for (const removed of resetEmbeddedState(config)) log.info({ removed }, '--reset: removed');
  }
  if (values['as-of'] !== undefined || values.speed !== undefined) {
    return replayCommand(config, log, { data: values.data, asOf: values['as-of'], speed: values.speed });
  }
  const ctx = await openRuntime(config, log, { role: 'embedded' });
  // Runs handed to a previous server that was killed (SIGKILL, OOM) died with it: mark them failed now
  // (what they wrote was never published) rather than leaving them `running` until the next run.
  await markAbandonedRuns(ctx.store, log).catch((err: unknown) =>
    log.warn({ err: (err as Error).message }, 'runs: could not check for abandoned runs'),
  );

  const matches = new MatchesRepository(ctx.db);
  const count = await matches.count();
  // A first start killed during ingest leaves rows but no dataset record and no champion: the
  // (upserting, idempotent) ingest runs again instead of being skipped for good (issue 18 item 4).
  const ingestInterrupted =
    count > 0 &&
    readDatasetRecord(config.dataDir) === null &&
    !firstStartDone(config.dataDir) &&
    !(await ctx.registry.resolve('champion'));
  try {
    if (!ingestInterrupted) checkDataset(config, values.data, count);
  } catch (err) {
    await ctx.close();
    if (isMatchcastError(err)) {
      process.stderr.write(`matchcast start: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  if (count === 0 || ingestInterrupted) {
    if (ingestInterrupted) log.info('first start was interrupted during ingest: ingesting again');
    if (values.data) {
      const report = await ingestPath(values.data, { db: ctx.db, store: ctx.store, log });
      log.info({ inserted: report.inserted, skipped: report.skipped.length }, 'first start: ingested data');
    } else {
      const report = await ingestSynthetic({}, { db: ctx.db, store: ctx.store, log });
      log.info({ inserted: report.inserted }, 'first start: generated synthetic league');
    }
    writeDatasetRecord(config.dataDir, datasetSource(values.data));
  }
  if (!firstStartDone(config.dataDir)) {
    // Also resumes a first start that was killed midway (no marker yet): it does what is missing.
    log.info(
      'first start: running the pipeline (features, train, promote, backtest, predict, simulate, drift)',
    );
    await bootstrapFirstRun({ config, db: ctx.db, store: ctx.store, registry: ctx.registry, log });
  }
  await ctx.startEmbeddedWorker?.();
  return serveEmbedded(ctx, {
    banner: (url) =>
      [
        '',
        `  matchcast is running at ${url}`,
        `  UI:   ${url}/ui/      docs: ${url}/docs`,
        `  API key (X-API-Key): ${config.apiKey}`,
        `  try:  curl -H "X-API-Key: ${config.apiKey}" ${url}/predict/predictions/`,
        `  admin key (X-Admin-Key, /admin/*): ${base.adminKey ? 'ADMIN_KEY' : path.join(config.dataDir, ADMIN_KEY_FILE)}`,
        '',
      ].join('\n'),
  });
}
