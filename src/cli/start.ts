import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type Config, loadEnv, parseConfig } from '../config.js';
import { MatchesRepository, PendingRepredictions } from '../db/index.js';
import { isMatchcastError } from '../domain/index.js';
import { ingestPath, ingestSynthetic } from '../ingest/index.js';
import { bootstrapFirstRun, firstStartDone, type Progress, repredictMatches } from '../pipeline/index.js';
import { markAbandonedRuns } from '../runs/index.js';
import { openRuntime, type RuntimeContext } from '../runtime.js';
import {
  checkDataset,
  datasetSource,
  readDatasetRecord,
  resetEmbeddedState,
  writeDatasetRecord,
} from './dataset-record.js';
import { followParent, isFirstStartChild, runFirstStartChild } from './first-start-child.js';
import { INGEST_REPREDICT_MAX } from './ingest.js';
import { REPLAY_MAX_SPEED, replayCommand, replayOptions } from './replay.js';
import { serveEmbedded } from './serve-embedded.js';
import { assertPortFree } from './server.js';
import { storedApiKey } from './server-file.js';
import { commandOutput } from './terminal.js';
import { parseCliArgs, portOption, showHelp } from './usage-error.js';

const HELP = `matchcast start — the whole service in one process, with embedded defaults

Options:
  --data <path>   ingest real CSVs (shared-data or football-data.co.uk format) instead of synthetic data
  --port <n>      port, 0..65535 (default PORT or 8000; 0 = any free port); a port in use stops start
                  before any work
  --host <addr>   interface to listen on (default HOST, else 127.0.0.1: this machine only; 0.0.0.0 for
                  every interface)
  --reset         delete DATA_DIR's embedded state (database, objects, models) first, e.g. to switch
                  data sets; the API key stays
  --json          JSON log lines (and progress) on stdout even on a terminal (the default off one)
Replay (with --data):
  --as-of <date>  serve as if "now" were <date>; later matches are fixtures that receive their odds
                  and results as the clock passes them (docs/operations.md)
  --speed <n>     simulated seconds per real second, 0..${REPLAY_MAX_SPEED} (default 1; 0 freezes the clock)

While it serves, \`matchcast ingest\`, \`pipeline\`, \`runs\`, \`registry\` and \`bootstrap\` from another
shell share its database over its socket; PIPELINE_SCHEDULE runs \`pipeline run\` on a schedule, in a
child process.

On first start (empty database / registry) it ingests data, runs the pipeline, signs off the first
candidate as champion and registers a challenger, in a child process (what that work allocates goes
with it). The API key is API_KEY, or one generated into
DATA_DIR/api-key (readable by its owner only). On a terminal it shows progress bars and plain
lines, and prints the URL and the key last, once it serves.`;

/** API_KEY, else the key stored in `<DATA_DIR>/api-key`, generated once (readable by its owner only). */
async function embeddedApiKey(config: Config): Promise<string> {
  const stored = await storedApiKey(config);
  if (stored && stored.length >= 16) return stored;
  const key = randomBytes(32).toString('hex');
  await mkdir(config.dataDir, { recursive: true });
  await writeFile(path.join(config.dataDir, 'api-key'), `${key}\n`, { mode: 0o600 });
  return key;
}

// Re-predicts the matches an ingest killed mid-way left waiting, before the server answers; a failure
// is logged, not fatal.
async function catchUpPending(ctx: RuntimeContext): Promise<void> {
  try {
    const waiting = await new PendingRepredictions(ctx.db).ids();
    if (waiting.length === 0 || waiting.length > INGEST_REPREDICT_MAX) return;
    const { published, run_id } = await repredictMatches(ctx, waiting, { asOf: new Date(), actor: 'start' });
    ctx.log.info({ matches: waiting.length, published, run_id }, 'pending re-predictions caught up');
  } catch (err) {
    ctx.log.warn(
      { err: err instanceof Error ? err.message : String(err) },
      'pending re-predictions: not caught up',
    );
  }
}

// The first start's work: ingest when the database is empty (or that ingest was interrupted), then the
// bootstrap run when unfinished. Returns 2 when DATA_DIR holds another data set (said on stderr), else 0.
async function prepareData(
  ctx: RuntimeContext,
  data: string | undefined,
  progress: Progress,
): Promise<number> {
  const { config, log } = ctx;
  const count = await new MatchesRepository(ctx.db).count();
  // A first start killed during ingest leaves rows but no dataset record and no champion: the
  // (upserting, idempotent) ingest runs again instead of being skipped for good.
  const ingestInterrupted =
    count > 0 &&
    readDatasetRecord(config.dataDir) === null &&
    !firstStartDone(config.dataDir) &&
    !(await ctx.registry.resolve('champion'));
  try {
    if (!ingestInterrupted) checkDataset(config, data, count);
  } catch (err) {
    if (isMatchcastError(err)) {
      process.stderr.write(`matchcast start: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  if (count === 0 || ingestInterrupted) {
    if (ingestInterrupted) log.info('first start was interrupted during ingest: ingesting again');
    if (data) {
      const { inserted, skipped } = await ingestPath(data, ctx);
      log.info({ inserted, skipped: skipped.length }, 'first start: ingested data');
    } else {
      const { inserted } = await ingestSynthetic({}, ctx);
      log.info({ inserted }, 'first start: generated synthetic league');
    }
    writeDatasetRecord(config.dataDir, datasetSource(data));
  }
  if (!firstStartDone(config.dataDir)) {
    // Also resumes a first start that was killed midway (no marker yet): it does what is missing.
    log.info(
      'first start: running the pipeline (features, train, promote, backtest, predict, simulate, drift)',
    );
    await bootstrapFirstRun({ ...ctx, progress });
  }
  return 0;
}

/** `matchcast start`: embedded stack, first-run bootstrap, then serve on PORT (8000). */
export async function startCommand(argv: string[]): Promise<number> {
  const { values } = parseCliArgs(argv, {
    strings: ['data', 'port', 'host', 'as-of', 'speed'],
    booleans: ['reset', 'json'],
  });
  if (values.help) return showHelp(HELP);
  // Every option and setting is checked, and the port tried, before any work (a first start runs
  // minutes of ingest and pipeline that a bad option or a busy port would only waste).
  const replay =
    values['as-of'] !== undefined || values.speed !== undefined
      ? replayOptions({ data: values.data, asOf: values['as-of'], speed: values.speed })
      : null;
  const env = loadEnv();
  const base = parseConfig({
    ...env,
    ...(values.port !== undefined ? { PORT: portOption('port', values.port) } : {}),
    // Without --host or HOST, this machine only (`serve`, in containers, keeps HOST's default 0.0.0.0).
    HOST: values.host ?? env.HOST ?? '127.0.0.1',
  });
  // The first-start child only does that work: its parent has checked the port, reset DATA_DIR and serves.
  const firstStartChild = isFirstStartChild();
  if (firstStartChild) followParent();
  else await assertPortFree(base.port, base.host);
  const config: Config = { ...base, apiKey: await embeddedApiKey(base) };
  const output = commandOutput({ name: 'matchcast', level: config.logLevel, json: values.json === true });
  const { log } = output;
  if (values.reset && !firstStartChild)
    for (const removed of resetEmbeddedState(config)) log.info({ removed }, '--reset: removed');
  if (replay) return replayCommand(config, log, replay);
  if (!firstStartChild && !firstStartDone(config.dataDir)) {
    const code = await runFirstStartChild(argv);
    if (code !== 0) return code;
  }
  const ctx = await openRuntime(config, log, { role: 'embedded' });
  // Runs handed to a previous server that was killed (SIGKILL, OOM) died with it: mark them failed now
  // (what they wrote was never published) rather than leaving them `running` until the next run.
  await markAbandonedRuns(ctx.db, log).catch((err: unknown) =>
    log.warn({ err: (err as Error).message }, 'runs: could not check for abandoned runs'),
  );

  const prepared = await prepareData(ctx, values.data, output.progress).catch(async (err) => {
    await ctx.close();
    throw err;
  });
  if (prepared !== 0 || firstStartChild) {
    await ctx.close();
    return prepared;
  }
  await catchUpPending(ctx);
  await ctx.startEmbeddedWorker?.();
  return serveEmbedded(ctx, {
    // On a terminal the access lines go through the human log lines (a thread would write JSON).
    banner: (url) =>
      [
        '',
        `  matchcast is running at ${url}`,
        `  UI:   ${url}/ui/      docs: ${url}/docs`,
        `  API key (X-API-Key): ${config.apiKey}`,
        `  try:  curl -H "X-API-Key: ${config.apiKey}" ${url}/predict/predictions/`,
        '',
      ].join('\n'),
  });
}
