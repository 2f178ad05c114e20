import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { CronExpressionParser } from 'cron-parser';
import { parse as parseDotenv } from 'dotenv';
import { MatchcastError } from './domain/index.js';

/** Every setting, read from the environment (and `.env`) and validated: one entry of {@link readSettings}. */
export type Config = ReturnType<typeof readSettings>;

type Env = Record<string, string | undefined>;

/** The invalid settings found by the {@link parseConfig} in progress, reported all at once. */
let problems: string[] = [];

/** Records that setting `name` is invalid and returns `def`, what a reader then returns. */
function invalid<T>(name: string, reason: string, def: T): T {
  problems.push(`${name}: ${reason}`);
  return def;
}

function str(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}

/** A number within `min..max` (an integer when `integer`), else the default and a problem. */
function num(env: Env, name: string, def: number, min: number, max: number, integer = false): number {
  const raw = str(env, name);
  if (raw === undefined) return def;
  const n = Number(raw);
  if (integer ? !/^-?\d+$/.test(raw) : !Number.isFinite(n))
    return invalid(name, `expected ${integer ? 'an integer' : 'a number'} ${min}..${max}, got "${raw}"`, def);
  if (n < min || n > max) return invalid(name, `expected ${min}..${max}, got ${raw}`, def);
  return n;
}

function int(env: Env, name: string, def: number, min: number, max: number): number {
  return num(env, name, def, min, max, true);
}

function bool(env: Env, name: string, def: boolean): boolean {
  const raw = str(env, name)?.toLowerCase();
  if (raw === undefined) return def;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  return invalid(name, `expected true or false, got "${raw}"`, def);
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = str(env, name);
  if (raw === undefined) return undefined;
  if (!URL.canParse(raw)) return invalid(name, 'not a valid URL', undefined);
  if (!protocols.includes(new URL(raw).protocol))
    return invalid(name, `expected a ${protocols.join(' or ')} URL`, undefined);
  return raw;
}

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `every <n><s|m|h|d>` in ms; null when `spec` is not of that form, the problem when outside 1s..366d. */
export function everyIntervalMs(spec: string): number | string | null {
  const every = /^every\s+(\d+)\s*([smhd])$/i.exec(spec.trim());
  if (!every) return null;
  const ms = Number(every[1]) * UNIT_MS[every[2]!.toLowerCase() as keyof typeof UNIT_MS];
  if (ms < UNIT_MS.s || ms > 366 * UNIT_MS.d) return `an interval of "${spec.trim()}" is outside 1s..366d`;
  return ms;
}

/** A cron pattern (5 or 6 fields, UTC) or `every <n><s|m|h|d>` within 1 s..366 d. */
function schedule(env: Env, name: string): string | undefined {
  const raw = str(env, name);
  if (raw === undefined) return undefined;
  const every = everyIntervalMs(raw);
  if (typeof every === 'number') return raw;
  if (typeof every === 'string') return invalid(name, every, undefined);
  const fields = raw.split(/\s+/).length;
  let reason = fields === 5 || fields === 6 ? null : `${fields} fields`;
  try {
    if (reason === null) CronExpressionParser.parse(raw, { tz: 'UTC' });
  } catch (err) {
    reason = (err as Error).message;
  }
  if (reason === null) return raw;
  const want = 'expected a cron pattern (e.g. "30 4 * * *") or "every 15m" (1s..366d)';
  return invalid(name, `${want}, got "${raw}" (${reason})`, undefined);
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Reads `.env` from `cwd` when present; real environment variables win over it. */
export function loadEnv(cwd = process.cwd(), env: Env = process.env): Env {
  const file = path.join(cwd, '.env');
  if (!existsSync(file)) return { ...env };
  return { ...parseDotenv(readFileSync(file)), ...env };
}

/**
 * Parses and validates every setting. Throws one {@link MatchcastError} (MC_ERR_CONFIG) naming every
 * invalid setting, each with the value it got and what it accepts.
 */
export function parseConfig(env: Env = loadEnv()): Config {
  problems = [];
  const config = readSettings(env);
  const n = problems.length;
  if (n === 1) throw new MatchcastError('MC_ERR_CONFIG', `Invalid setting ${problems[0]}`);
  if (n > 1) {
    const list = problems.map((f) => `  ${f}`).join('\n');
    throw new MatchcastError('MC_ERR_CONFIG', `Invalid settings (${n}):\n${list}`);
  }
  return config;
}

/** Reads every setting; an invalid one is recorded with {@link invalid} and the rest still read. */
function readSettings(env: Env) {
  const port = int(env, 'PORT', 8000, 0, 65535);
  const logLevel = (str(env, 'LOG_LEVEL') ?? 'info').toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel))
    invalid('LOG_LEVEL', `expected one of ${LOG_LEVELS.join(', ')}`, null);
  const apiKey = str(env, 'API_KEY');
  if (apiKey !== undefined && (apiKey.length < 16 || !/^[\x21-\x7e]+$/.test(apiKey)))
    invalid('API_KEY', 'expected at least 16 printable ASCII characters', null);
  const origins = (str(env, 'CORS_ALLOWED_ORIGINS') ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  for (const o of origins.filter((o) => o !== '*' && !/^https?:\/\/[^/\s]+$/.test(o)))
    invalid('CORS_ALLOWED_ORIGINS', `"${o}" is not an origin like https://example.com`, null);
  const redisUrl = url(env, 'REDIS_URL', ['redis:', 'rediss:']);
  const queueName = str(env, 'QUEUE_NAME') ?? 'ml';
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(queueName)) invalid('QUEUE_NAME', 'expected [A-Za-z0-9_-]{1,64}', null);
  const modelName = str(env, 'MODEL_NAME') ?? 'matchcast-1x2';
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(modelName)) invalid('MODEL_NAME', 'expected [A-Za-z0-9_.-]{1,64}', null);
  const bucketPrefix = str(env, 'S3_BUCKET_PREFIX') ?? '';
  if (!/^[a-z0-9.-]{0,30}$/.test(bucketPrefix))
    invalid('S3_BUCKET_PREFIX', 'expected [a-z0-9.-]{0,30}', null);
  const template = str(env, 'BOOKMAKER_URL_TEMPLATE') ?? 'https://www.oddsportal.com/search/{home}-{away}/';
  if (!/^https?:\/\//.test(template))
    invalid('BOOKMAKER_URL_TEMPLATE', 'expected an http(s) URL template', null);

  return {
    /** HTTP port. Default `8000` (spec §4.1). */
    port,
    /** Interface to bind. Default `0.0.0.0`. */
    host: str(env, 'HOST') ?? '0.0.0.0',
    /** The API key for `/predict/*`. Default unset: `serve` refuses to start, `start` generates one. */
    apiKey,
    /** Allowed CORS origins, comma-separated. Default empty = no cross-origin access. */
    corsAllowedOrigins: origins,
    /** Prediction cache TTL in seconds. Default `3600` (spec §3.3). */
    predictionCacheTtl: int(env, 'PREDICTION_CACHE_TTL', 3600, 1, 30 * 86400),
    /** PostgreSQL URL. Default unset = PGlite under `<DATA_DIR>/db`. */
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    /** Redis URL for BullMQ and the cache. Default unset = in-process queue and memory cache. */
    redisUrl,
    /** Redis URL for the prediction cache only. Default = `REDIS_URL`. */
    cacheUrl: url(env, 'CACHE_URL', ['redis:', 'rediss:']) ?? redisUrl,
    /** S3 endpoint. Default unset = folder store under `<DATA_DIR>/objects`. */
    s3Endpoint: url(env, 'S3_ENDPOINT', ['http:', 'https:']),
    /** S3 region. Default `us-east-1`. */
    s3Region: str(env, 'S3_REGION') ?? 'us-east-1',
    /** S3 access key id. Default unset (SDK default chain). */
    s3AccessKeyId: str(env, 'S3_ACCESS_KEY_ID'),
    /** S3 secret access key. Default unset (SDK default chain). */
    s3SecretAccessKey: str(env, 'S3_SECRET_ACCESS_KEY'),
    /** Prefix prepended to every bucket name on S3 (e.g. `matchcast-`). Default empty. */
    s3BucketPrefix: bucketPrefix,
    /** Path-style S3 addressing (MinIO, s3rver). Default `true`. */
    s3ForcePathStyle: bool(env, 'S3_FORCE_PATH_STYLE', true),
    /** Folder for embedded state: PGlite, folder store, generated key. Default `var`. */
    dataDir: path.resolve(str(env, 'DATA_DIR') ?? 'var'),
    /** Registered model name in the registry. Default `matchcast-1x2`. */
    modelName,
    /** pino log level. Default `info`. */
    logLevel: logLevel as (typeof LOG_LEVELS)[number],
    /**
     * A new version becomes candidate when its validation log loss is ≤ the champion's + this on the same
     * matches, and it beats the opening line. Default `0.0005`.
     */
    promotionTolerance: num(env, 'PROMOTION_TOLERANCE', 0.0005, 0, 1),
    /** How much lower than the opening line's the new version's validation log loss must be. Default `0`. */
    promotionOpeningMargin: num(env, 'PROMOTION_OPENING_MARGIN', 0, 0, 1),
    /** Realised performance: the last N finished served matches of each group; 0 = no limit. Default `300`. */
    performanceWindowMatches: int(env, 'PERFORMANCE_WINDOW_MATCHES', 300, 0, 10_000_000),
    /** Realised performance: only kick-offs within this many days before now; 0 = no limit. Default `0`. */
    performanceWindowDays: int(env, 'PERFORMANCE_WINDOW_DAYS', 0, 0, 36_500),
    /** Minimum edge (`p × odd − 1`) to place a simulated bet. Default `0.05`. */
    edgeThreshold: num(env, 'EDGE_THRESHOLD', 0.05, 0, 10),
    /** Hard bound on a synchronous wait for a worker, ms. Default `30000` (spec §8). */
    predictTimeoutMs: int(env, 'PREDICT_TIMEOUT_MS', 30_000, 10, 30_000),
    /** Task queue name. Default `ml` (spec §1). */
    queueName,
    /** Tasks a worker runs at once. Default `4`. */
    workerConcurrency: int(env, 'WORKER_CONCURRENCY', 4, 1, 256),
    /** Worker threads of the embedded in-process queue. Default `1`. */
    embeddedWorkerThreads: int(env, 'EMBEDDED_WORKER_THREADS', 1, 1, 64),
    /** Bookmaker link of a match card; `{match_id}`, `{home}`, `{away}` are substituted. */
    bookmakerUrlTemplate: template,
    /** How often serving views poll the store for changed artifacts, ms. Default `5000`. */
    viewRefreshMs: int(env, 'VIEW_REFRESH_MS', 5000, 50, 3_600_000),
    /** How often the ROI file is re-checked against the store, ms. Default `60000` (spec §4.6). */
    roiRecheckMs: int(env, 'ROI_RECHECK_MS', 60_000, 50, 3_600_000),
    /** How often workers and the API re-resolve aliases, ms. Default `3000`. */
    aliasRefreshMs: int(env, 'ALIAS_REFRESH_MS', 3000, 10, 600_000),
    /** Lifetime of report URLs, seconds. Default `3600` (spec §8). */
    reportUrlTtl: int(env, 'REPORT_URL_TTL', 3600, 1, 7 * 86400),
    /** Secret for HMAC-signed URLs of the folder store. Default unset = generated and kept under `DATA_DIR`. */
    urlSigningSecret: str(env, 'URL_SIGNING_SECRET'),
    /** Public base URL used in signed links. Default `http://localhost:<PORT>`. */
    publicBaseUrl: (url(env, 'PUBLIC_BASE_URL', ['http:', 'https:']) ?? `http://localhost:${port}`).replace(
      /\/$/,
      '',
    ),
    /** Put `/monitoring/*` behind the API key (spec §5 rule 5, planned). Default `false`. */
    monitoringRequireKey: bool(env, 'MONITORING_REQUIRE_KEY', false),
    /** Maximum request body, bytes. Default `16384`. */
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 16_384, 256, 10_485_760),
    /** Bound on graceful shutdown, ms. Default `10000`. */
    shutdownTimeoutMs: int(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 100, 120_000),
    /** Default `limit` of `/livescores/`. Default `100`. */
    livescoresDefaultLimit: int(env, 'LIVESCORES_DEFAULT_LIMIT', 100, 1, 10_000),
    /** Timeout of a database call made by a request, ms. Default `2000`. */
    dbTimeoutMs: int(env, 'DB_TIMEOUT_MS', 2000, 50, 60_000),
    /** Timeout of a task-broker call made by a request (enqueue, status), ms. Default `2000`. */
    brokerTimeoutMs: int(env, 'BROKER_TIMEOUT_MS', 2000, 50, 60_000),
    /** When `pipeline run` runs: cron (`30 4 * * *`, UTC) or `every <n><s|m|h|d>`. Default unset. */
    pipelineSchedule: schedule(env, 'PIPELINE_SCHEDULE'),
    /** CSV file or folder ingested before each scheduled run (`pipeline run --source`). Default unset. */
    pipelineSource: str(env, 'PIPELINE_SOURCE'),
    /** Whether this process polls the sources. Default `true` for `start`; a worker only when set. */

    sourcePolling: str(env, 'SOURCE_POLLING') === undefined ? undefined : bool(env, 'SOURCE_POLLING', false),
    /** How long a finished task's result stays readable by `task_status`, seconds (by age, like Celery's result backend). Default `86400`. */
    resultTtl: int(env, 'RESULT_TTL', 86_400, 1, 30 * 86_400),
    /** Memory cap of the result store: at most this many finished results are kept (oldest dropped first; ≈ 2.5 KB each in Redis). Default `100000`. */
    resultStoreMax: int(env, 'RESULT_STORE_MAX', 100_000, 10, 10_000_000),
    /** Waiting (not yet started) tasks the queue accepts; beyond it a submit answers 503 `MC_ERR_QUEUE_FULL` with `Retry-After`. Default `10000`. */
    queueMaxWaiting: int(env, 'QUEUE_MAX_WAITING', 10_000, 1, 10_000_000),
    /** Bound on receiving a whole request (headers and body), ms; a slower client gets 408. Default `10000`. */
    requestTimeoutMs: int(env, 'REQUEST_TIMEOUT_MS', 10_000, 100, 300_000),
    /** Pipeline runs kept for rollback (older ones are deleted, never the published one or one it references). Default `10`. */
    runsKeep: int(env, 'RUNS_KEEP', 10, 1, 10_000),
    /** Gate `rows`: largest share of rows a run may lose against the published run before it is refused. Default `0.2`. */
    gateMaxRowDrop: num(env, 'GATE_MAX_ROW_DROP', 0.2, 0, 1),
  };
}

/** Names of every setting (each variable {@link readSettings} reads), for docs and for deploy-file tests. */
export const SETTING_NAMES: readonly string[] = (() => {
  const names = new Set<string>();
  readSettings(new Proxy({}, { get: (_, name) => void names.add(String(name)) }));
  return [...names];
})();
