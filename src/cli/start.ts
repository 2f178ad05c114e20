import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { type Config, parseConfig } from '../config.js';
import { MatchesRepository } from '../db/index.js';
import { ingestPath, ingestSynthetic } from '../ingest/index.js';
import { createLogger } from '../logger.js';
import { bootstrapFirstRun } from '../pipeline/index.js';
import { openRuntime } from '../runtime.js';
import { runServer } from './server.js';

const HELP = `matchcast start — the whole service in one process, with embedded defaults

  --data <path>   ingest real CSVs (shared-data or football-data.co.uk format) instead of synthetic data
  --port <n>      port (default PORT or 8000)

On first start (empty database / registry) it ingests data, runs the pipeline, signs off the first
candidate as champion and registers a challenger. The API key is API_KEY, or one generated into
DATA_DIR/api-key.`;

/** The API key of an embedded install: API_KEY, or a random key generated once and kept under DATA_DIR. */
export async function embeddedApiKey(config: Config): Promise<string> {
  if (config.apiKey) return config.apiKey;
  const file = path.join(config.dataDir, 'api-key');
  try {
    const key = (await readFile(file, 'utf8')).trim();
    if (key.length >= 16) return key;
  } catch {
    // absent: generate below
  }
  const key = randomBytes(32).toString('hex');
  await mkdir(config.dataDir, { recursive: true });
  await writeFile(file, `${key}\n`, { mode: 0o600 });
  return key;
}

/** `matchcast start`: embedded stack, first-run bootstrap, then serve on PORT (8000). */
export async function startCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { data: { type: 'string' }, port: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  const env = { ...process.env, ...(values.port ? { PORT: values.port } : {}) };
  const base = parseConfig(env);
  const config: Config = { ...base, apiKey: await embeddedApiKey(base) };
  const log = createLogger(config.logLevel, 'matchcast');
  const ctx = await openRuntime(config, log, { role: 'embedded' });

  const matches = new MatchesRepository(ctx.db);
  if ((await matches.count()) === 0) {
    if (values.data) {
      const report = await ingestPath(values.data, { db: ctx.db, store: ctx.store, log });
      log.info({ inserted: report.inserted, skipped: report.skipped.length }, 'first start: ingested data');
    } else {
      const report = await ingestSynthetic({}, { db: ctx.db, store: ctx.store, log });
      log.info({ inserted: report.inserted }, 'first start: generated synthetic league');
    }
  }
  if ((await ctx.registry.listVersions()).length === 0) {
    log.info(
      'first start: running the pipeline (features, train, promote, backtest, predict, simulate, drift)',
    );
    await bootstrapFirstRun({ config, db: ctx.db, store: ctx.store, registry: ctx.registry, log });
  }
  await ctx.startEmbeddedWorker?.();

  return runServer(ctx, {
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
