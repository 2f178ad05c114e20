import { isMatchcastError, MatchcastError } from '../domain/index.js';
import type { Database, Queryable, QueryOptions } from './database.js';

export interface DeferredDatabaseOptions {
  /** Which adapter `open` builds (reported while it is not open yet). */
  kind: Database['kind'];
  /** Called once when the database is opened after an outage at start. */
  onOpen?: () => void;
}

/**
 * Opens the database or, when unreachable, a stand-in failing every call fast while it retries opening, so
 * a process started in an outage needs no restart. Other failures (bad credentials, schema) are thrown.
 */
export async function openDatabaseDeferred(
  open: () => Promise<Database>,
  options: DeferredDatabaseOptions,
): Promise<{ db: Database; deferred: boolean }> {
  try {
    return { db: await open(), deferred: false };
  } catch (err) {
    if (!isMatchcastError(err, 'MC_ERR_DATABASE_UNAVAILABLE')) throw err;
    return { db: new DeferredDatabase(open, options, err), deferred: true };
  }
}

const RETRY_MS = 1000; // minimum time between two attempts to open
const BACKGROUND_MS = 5000; // period of the background attempts while the database is down

class DeferredDatabase implements Database {
  readonly kind: Database['kind'];
  private inner: Database | undefined;
  private opening: Promise<Database> | undefined;
  private lastAttempt = Date.now();
  private closed = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly open: () => Promise<Database>,
    private readonly options: DeferredDatabaseOptions,
    private lastError: MatchcastError,
  ) {
    this.kind = options.kind;
    this.timer = setInterval(() => {
      if (!this.inner) this.attempt().catch(() => undefined);
    }, BACKGROUND_MS).unref();
  }

  get schema(): string | undefined {
    return this.inner?.schema;
  }

  private async get(): Promise<Database> {
    if (this.inner) return this.inner;
    if (this.opening) return this.opening;
    if (Date.now() - this.lastAttempt < RETRY_MS) throw this.lastError;
    return this.attempt();
  }

  private attempt(): Promise<Database> {
    if (this.closed) return Promise.reject(new MatchcastError('MC_ERR_DATABASE_UNAVAILABLE', 'closed'));
    this.opening ??= (async () => {
      this.lastAttempt = Date.now();
      try {
        const db = await this.open();
        if (this.closed) {
          await db.close().catch(() => undefined);
          throw new MatchcastError('MC_ERR_DATABASE_UNAVAILABLE', 'closed');
        }
        this.inner = db;
        clearInterval(this.timer);
        this.options.onOpen?.();
        return db;
      } catch (err) {
        this.lastError = isMatchcastError(err)
          ? err
          : new MatchcastError('MC_ERR_DATABASE_UNAVAILABLE', 'Database is unavailable', { cause: err });
        throw this.lastError;
      } finally {
        this.opening = undefined;
      }
    })();
    return this.opening;
  }

  async query<T = Record<string, unknown>>(
    sql: string,
    params?: readonly unknown[],
    options?: QueryOptions,
  ): Promise<T[]> {
    return (await this.get()).query<T>(sql, params, options);
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return (await this.get()).transaction(fn);
  }

  async ping(timeoutMs: number): Promise<boolean> {
    if (this.inner) return this.inner.ping(timeoutMs);
    // Not open: try (rate-limited, in the background) but answer at once.
    this.get().catch(() => undefined);
    return false;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.opening?.catch(() => undefined);
    await this.inner?.close();
  }
}
