import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { CronExpressionParser } from 'cron-parser';
import { parse as parseDotenv } from 'dotenv';
import { MatchcastError } from './domain/index.js';

/**
 * Every setting of matchcast, read once from the environment (and an optional `.env`) and
 * validated. An invalid value stops start-up with a message naming the setting.
 */
export interface Config {
  /** HTTP port. Default `8000` (spec §4.1). */
  port: number;
  /** Interface to bind. Default `0.0.0.0`. */
  host: string;
  /** The API key for `/predict/*`. Default unset: `serve` refuses to start, `start` generates one. */
  apiKey: string | undefined;
  /** Allowed CORS origins, comma-separated. Default empty = no cross-origin access. */
  corsAllowedOrigins: string[];
  /** Prediction cache TTL in seconds. Default `3600` (spec §3.3). */
  predictionCacheTtl: number;
  /** PostgreSQL URL. Default unset = PGlite under `<DATA_DIR>/db`. */
  databaseUrl: string | undefined;
  /** Redis URL for BullMQ and the cache. Default unset = in-process queue and memory cache. */
  redisUrl: string | undefined;
  /** Redis URL for the prediction cache only. Default = `REDIS_URL`. */
  cacheUrl: string | undefined;
  /** S3 endpoint. Default unset = folder store under `<DATA_DIR>/objects`. */
  s3Endpoint: string | undefined;
  /** S3 region. Default `us-east-1`. */
  s3Region: string;
  /** S3 access key id. Default unset (SDK default chain). */
  s3AccessKeyId: string | undefined;
  /** S3 secret access key. Default unset (SDK default chain). */
  s3SecretAccessKey: string | undefined;
  /** Prefix prepended to every bucket name on S3 (e.g. `matchcast-`). Default empty. */
  s3BucketPrefix: string;
  /** Path-style S3 addressing (MinIO, s3rver). Default `true`. */
  s3ForcePathStyle: boolean;
  /** Folder for embedded state: PGlite, folder store, generated key. Default `var`. */
  dataDir: string;
  /** Registered model name in the registry. Default `matchcast-1x2`. */
  modelName: string;
  /** pino log level. Default `info`. */
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /**
   * A new version becomes candidate when its validation log loss is at most the champion's + this on the
   * same matches (beats it, or ties within this) — and it beats the opening line. Default `0.0005`.
   */
  promotionTolerance: number;
  /** How much lower than the opening line's the new version's validation log loss must be. Default `0`. */
  promotionOpeningMargin: number;
  /** Realised performance: the last N finished served matches of each group; 0 = no limit. Default `300`. */
  performanceWindowMatches: number;
  /** Realised performance: only kick-offs within this many days before now; 0 = no limit. Default `0`. */
  performanceWindowDays: number;
  /** Minimum edge (`p × odd − 1`) to place a simulated bet. Default `0.05`. */
  edgeThreshold: number;
  /** Hard bound on a synchronous wait for a worker, ms. Default `30000` (spec §8). */
  predictTimeoutMs: number;
  /** Task queue name. Default `ml` (spec §1). */
  queueName: string;
  /** Tasks a worker runs at once. Default `4`. */
  workerConcurrency: number;
  /** Worker threads of the embedded in-process queue. Default `1`. */
  embeddedWorkerThreads: number;
  /** Bookmaker link of a match card; `{match_id}`, `{home}`, `{away}` are substituted. */
  bookmakerUrlTemplate: string;
  /** How often serving views poll the store for changed artifacts, ms. Default `5000`. */
  viewRefreshMs: number;
  /** How often the ROI file is re-checked against the store, ms. Default `60000` (spec §4.6). */
  roiRecheckMs: number;
  /** How often workers and the API re-resolve aliases, ms. Default `3000`. */
  aliasRefreshMs: number;
  /** Lifetime of report URLs, seconds. Default `3600` (spec §8). */
  reportUrlTtl: number;
  /** Secret for HMAC-signed URLs of the folder store. Default unset = generated and kept under `DATA_DIR`. */
  urlSigningSecret: string | undefined;
  /** Public base URL used in signed links. Default `http://localhost:<PORT>`. */
  publicBaseUrl: string;
  /** Put `/monitoring/*` behind the API key (spec §5 rule 5, planned). Default `false`. */
  monitoringRequireKey: boolean;
  /** Maximum request body, bytes. Default `16384`. */
  bodyLimitBytes: number;
  /** Bound on graceful shutdown, ms. Default `10000`. */
  shutdownTimeoutMs: number;
  /** Default `limit` of `/livescores/`. Default `100`. */
  livescoresDefaultLimit: number;
  /** Timeout of a database call made by a request, ms. Default `2000`. */
  dbTimeoutMs: number;
  /**
   * When the service refreshes itself: a cron pattern (`30 4 * * *`, UTC, on the service clock) or
   * `every <n><s|m|h|d>`. `matchcast start` runs `pipeline run` on it in-process; `matchcast worker`
   * registers it as a BullMQ job scheduler (one run at a time across the cluster). Default unset = no
   * schedule (use the Kubernetes CronJob or run `matchcast pipeline run`).
   */
  pipelineSchedule: string | undefined;
  /** CSV file or folder ingested before each scheduled run (`pipeline run --source`). Default unset. */
  pipelineSource: string | undefined;
  /**
   * Whether this process polls the configured sources (`matchcast sources`) on their periods:
   * `matchcast start` in-process, `matchcast worker` through a BullMQ job scheduler per source.
   * Default `true` for `start`; a worker polls only when it is set (it then needs the database).
   */
  sourcePolling: boolean | undefined;
  /** How long a finished task's result stays readable by `task_status`, seconds (by age, like Celery's result backend). Default `86400`. */
  resultTtl: number;
  /** Memory cap of the result store: at most this many finished results are kept (oldest dropped first; ≈ 2.5 KB each in Redis). Default `100000`. */
  resultStoreMax: number;
  /** Waiting (not yet started) tasks the queue accepts; beyond it a submit answers 503 `MC_ERR_QUEUE_FULL` with `Retry-After`. Default `10000`. */
  queueMaxWaiting: number;
  /** Bound on receiving a whole request (headers and body), ms; a slower client gets 408. Default `10000`. */
  requestTimeoutMs: number;
  /** Pipeline runs kept for rollback (older ones are deleted, never the published one or one it references). Default `10`. */
  runsKeep: number;
  /** Gate `rows`: largest share of rows a run may lose against the published run before it is refused. Default `0.2`. */
  gateMaxRowDrop: number;
}

type Env = Record<string, string | undefined>;

class SettingError extends MatchcastError {
  constructor(name: string, reason: string) {
    super('MC_ERR_CONFIG', `Invalid setting ${name}: ${reason}`);
  }
}

/**
 * The problems found by the {@link parseConfig} in progress: every invalid setting is reported at
 * once, in one MC_ERR_CONFIG, rather than one per attempt. Outside a parse, {@link invalid} throws.
 */
let problems: string[] | null = null;

/** Records that setting `name` is invalid; a reader then returns the setting's default. */
function invalid(name: string, reason: string): void {
  if (!problems) throw new SettingError(name, reason);
  problems.push(`${name}: ${reason}`);
}

function str(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}

function int(env: Env, name: string, def: number, min: number, max: number): number {
  const raw = str(env, name);
  if (raw === undefined) return def;
  if (!/^-?\d+$/.test(raw)) {
    invalid(name, `expected an integer ${min}..${max}, got "${raw}"`);
    return def;
  }
  const n = Number(raw);
  if (n < min || n > max) {
    invalid(name, `expected ${min}..${max}, got ${raw}`);
    return def;
  }
  return n;
}

function num(env: Env, name: string, def: number, min: number, max: number): number {
  const raw = str(env, name);
  if (raw === undefined) return def;
  const n = Number(raw);
  if (!Number.isFinite(n)) {
    invalid(name, `expected a number ${min}..${max}, got "${raw}"`);
    return def;
  }
  if (n < min || n > max) {
    invalid(name, `expected ${min}..${max}, got ${raw}`);
    return def;
  }
  return n;
}

function bool(env: Env, name: string, def: boolean): boolean {
  const raw = str(env, name)?.toLowerCase();
  if (raw === undefined) return def;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  invalid(name, `expected true or false, got "${raw}"`);
  return def;
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = str(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    invalid(name, 'not a valid URL');
    return undefined;
  }
  if (!protocols.includes(parsed.protocol)) {
    invalid(name, `expected a ${protocols.join(' or ')} URL`);
    return undefined;
  }
  return raw;
}

/** Bounds of a `PIPELINE_SCHEDULE` interval (`every <n><s|m|h|d>`): 1 s to 366 days. */
const SCHEDULE_EVERY_MIN_MS = 1000;
const SCHEDULE_EVERY_MAX_MS = 366 * 86_400_000;
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/**
 * The interval of `every <n><s|m|h|d>` in ms; null when `spec` is not of that form, a string
 * naming the problem when the interval is out of bounds.
 */
export function everyIntervalMs(spec: string): number | string | null {
  const every = /^every\s+(\d+)\s*([smhd])$/i.exec(spec.trim());
  if (!every) return null;
  const ms = Number(every[1]) * UNIT_MS[every[2]!.toLowerCase() as keyof typeof UNIT_MS];
  if (ms < SCHEDULE_EVERY_MIN_MS || ms > SCHEDULE_EVERY_MAX_MS)
    return `an interval of "${spec.trim()}" is outside 1s..366d`;
  return ms;
}

/** A cron pattern (5 or 6 fields, UTC) or `every <n><s|m|h|d>` within 1 s..366 d. */
function schedule(env: Env, name: string): string | undefined {
  const raw = str(env, name);
  if (raw === undefined) return undefined;
  const every = everyIntervalMs(raw);
  if (typeof every === 'number') return raw;
  if (typeof every === 'string') {
    invalid(name, every);
    return undefined;
  }
  const fields = raw.split(/\s+/);
  let reason = fields.length === 5 || fields.length === 6 ? null : `${fields.length} fields`;
  if (reason === null) {
    try {
      CronExpressionParser.parse(raw, { tz: 'UTC' });
    } catch (err) {
      reason = (err as Error).message;
    }
  }
  if (reason === null) return raw;
  invalid(
    name,
    `expected a cron pattern (e.g. "30 4 * * *") or "every 15m" (1s..366d), got "${raw}" (${reason})`,
  );
  return undefined;
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
  const found: string[] = [];
  problems = found;
  let config: Config | undefined;
  try {
    config = readSettings(env);
  } catch (err) {
    // A check written as `invalid(…)` still joins the list (the settings after it are unchecked).
    if (!(err instanceof SettingError)) throw err;
    found.push(err.message.replace(/^Invalid setting /, ''));
  } finally {
    problems = null;
  }
  if (found.length === 1) throw new MatchcastError('MC_ERR_CONFIG', `Invalid setting ${found[0]}`);
  if (found.length > 1 || !config)
    throw new MatchcastError(
      'MC_ERR_CONFIG',
      `Invalid settings (${found.length}):\n${found.map((f) => `  ${f}`).join('\n')}`,
    );
  return config;
}

/** Reads every setting; an invalid one is recorded with {@link invalid} and the rest still read. */
function readSettings(env: Env): Config {
  const port = int(env, 'PORT', 8000, 0, 65535);
  const logLevel = (str(env, 'LOG_LEVEL') ?? 'info').toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    invalid('LOG_LEVEL', `expected one of ${LOG_LEVELS.join(', ')}`);
  }
  const apiKey = str(env, 'API_KEY');
  if (apiKey !== undefined && (apiKey.length < 16 || !/^[\x21-\x7e]+$/.test(apiKey))) {
    invalid('API_KEY', 'expected at least 16 printable ASCII characters');
  }
  const origins = (str(env, 'CORS_ALLOWED_ORIGINS') ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  for (const o of origins) {
    if (o !== '*' && !/^https?:\/\/[^/\s]+$/.test(o)) {
      invalid('CORS_ALLOWED_ORIGINS', `"${o}" is not an origin like https://example.com`);
    }
  }
  const redisUrl = url(env, 'REDIS_URL', ['redis:', 'rediss:']);
  const queueName = str(env, 'QUEUE_NAME') ?? 'ml';
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(queueName)) invalid('QUEUE_NAME', 'expected [A-Za-z0-9_-]{1,64}');
  const modelName = str(env, 'MODEL_NAME') ?? 'matchcast-1x2';
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(modelName)) {
    invalid('MODEL_NAME', 'expected [A-Za-z0-9_.-]{1,64}');
  }
  const bucketPrefix = str(env, 'S3_BUCKET_PREFIX') ?? '';
  if (!/^[a-z0-9.-]{0,30}$/.test(bucketPrefix)) invalid('S3_BUCKET_PREFIX', 'expected [a-z0-9.-]{0,30}');
  const template = str(env, 'BOOKMAKER_URL_TEMPLATE') ?? 'https://www.oddsportal.com/search/{home}-{away}/';
  if (!/^https?:\/\//.test(template)) invalid('BOOKMAKER_URL_TEMPLATE', 'expected an http(s) URL template');

  return {
    port,
    host: str(env, 'HOST') ?? '0.0.0.0',
    apiKey,
    corsAllowedOrigins: origins,
    predictionCacheTtl: int(env, 'PREDICTION_CACHE_TTL', 3600, 1, 30 * 86400),
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    redisUrl,
    cacheUrl: url(env, 'CACHE_URL', ['redis:', 'rediss:']) ?? redisUrl,
    s3Endpoint: url(env, 'S3_ENDPOINT', ['http:', 'https:']),
    s3Region: str(env, 'S3_REGION') ?? 'us-east-1',
    s3AccessKeyId: str(env, 'S3_ACCESS_KEY_ID'),
    s3SecretAccessKey: str(env, 'S3_SECRET_ACCESS_KEY'),
    s3BucketPrefix: bucketPrefix,
    s3ForcePathStyle: bool(env, 'S3_FORCE_PATH_STYLE', true),
    dataDir: path.resolve(str(env, 'DATA_DIR') ?? 'var'),
    modelName,
    logLevel: logLevel as Config['logLevel'],
    promotionTolerance: num(env, 'PROMOTION_TOLERANCE', 0.0005, 0, 1),
    promotionOpeningMargin: num(env, 'PROMOTION_OPENING_MARGIN', 0, 0, 1),
    performanceWindowMatches: int(env, 'PERFORMANCE_WINDOW_MATCHES', 300, 0, 10_000_000),
    performanceWindowDays: int(env, 'PERFORMANCE_WINDOW_DAYS', 0, 0, 36_500),
    edgeThreshold: num(env, 'EDGE_THRESHOLD', 0.05, 0, 10),
    predictTimeoutMs: int(env, 'PREDICT_TIMEOUT_MS', 30_000, 10, 30_000),
    queueName,
    workerConcurrency: int(env, 'WORKER_CONCURRENCY', 4, 1, 256),
    embeddedWorkerThreads: int(env, 'EMBEDDED_WORKER_THREADS', 1, 1, 64),
    bookmakerUrlTemplate: template,
    viewRefreshMs: int(env, 'VIEW_REFRESH_MS', 5000, 50, 3_600_000),
    roiRecheckMs: int(env, 'ROI_RECHECK_MS', 60_000, 50, 3_600_000),
    aliasRefreshMs: int(env, 'ALIAS_REFRESH_MS', 3000, 10, 600_000),
    reportUrlTtl: int(env, 'REPORT_URL_TTL', 3600, 1, 7 * 86400),
    urlSigningSecret: str(env, 'URL_SIGNING_SECRET'),
    publicBaseUrl: (url(env, 'PUBLIC_BASE_URL', ['http:', 'https:']) ?? `http://localhost:${port}`).replace(
      /\/$/,
      '',
    ),
    monitoringRequireKey: bool(env, 'MONITORING_REQUIRE_KEY', false),
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 16_384, 256, 10_485_760),
    shutdownTimeoutMs: int(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 100, 120_000),
    livescoresDefaultLimit: int(env, 'LIVESCORES_DEFAULT_LIMIT', 100, 1, 10_000),
    dbTimeoutMs: int(env, 'DB_TIMEOUT_MS', 2000, 50, 60_000),
    pipelineSchedule: schedule(env, 'PIPELINE_SCHEDULE'),
    pipelineSource: str(env, 'PIPELINE_SOURCE'),
    sourcePolling: str(env, 'SOURCE_POLLING') === undefined ? undefined : bool(env, 'SOURCE_POLLING', false),
    resultTtl: int(env, 'RESULT_TTL', 86_400, 1, 30 * 86_400),
    resultStoreMax: int(env, 'RESULT_STORE_MAX', 100_000, 10, 10_000_000),
    queueMaxWaiting: int(env, 'QUEUE_MAX_WAITING', 10_000, 1, 10_000_000),
    requestTimeoutMs: int(env, 'REQUEST_TIMEOUT_MS', 10_000, 100, 300_000),
    runsKeep: int(env, 'RUNS_KEEP', 10, 1, 10_000),
    gateMaxRowDrop: num(env, 'GATE_MAX_ROW_DROP', 0.2, 0, 1),
  };
}

/** Names of every setting, for docs and for deploy-file tests. */
export const SETTING_NAMES = [
  'PORT',
  'HOST',
  'API_KEY',
  'CORS_ALLOWED_ORIGINS',
  'PREDICTION_CACHE_TTL',
  'DATABASE_URL',
  'REDIS_URL',
  'CACHE_URL',
  'S3_ENDPOINT',
  'S3_REGION',
  'S3_ACCESS_KEY_ID',
  'S3_SECRET_ACCESS_KEY',
  'S3_BUCKET_PREFIX',
  'S3_FORCE_PATH_STYLE',
  'DATA_DIR',
  'MODEL_NAME',
  'LOG_LEVEL',
  'PROMOTION_TOLERANCE',
  'PROMOTION_OPENING_MARGIN',
  'PERFORMANCE_WINDOW_MATCHES',
  'PERFORMANCE_WINDOW_DAYS',
  'EDGE_THRESHOLD',
  'PREDICT_TIMEOUT_MS',
  'QUEUE_NAME',
  'WORKER_CONCURRENCY',
  'EMBEDDED_WORKER_THREADS',
  'BOOKMAKER_URL_TEMPLATE',
  'VIEW_REFRESH_MS',
  'ROI_RECHECK_MS',
  'ALIAS_REFRESH_MS',
  'REPORT_URL_TTL',
  'URL_SIGNING_SECRET',
  'PUBLIC_BASE_URL',
  'MONITORING_REQUIRE_KEY',
  'BODY_LIMIT_BYTES',
  'SHUTDOWN_TIMEOUT_MS',
  'LIVESCORES_DEFAULT_LIMIT',
  'DB_TIMEOUT_MS',
  'PIPELINE_SCHEDULE',
  'PIPELINE_SOURCE',
  'RESULT_TTL',
  'RESULT_STORE_MAX',
  'QUEUE_MAX_WAITING',
  'REQUEST_TIMEOUT_MS',
  'RUNS_KEEP',
  'GATE_MAX_ROW_DROP',
] as const;
