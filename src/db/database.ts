export interface QueryOptions {
  /** Client-side bound, ms (then MC_ERR_DATABASE_UNAVAILABLE); default the adapter's statement timeout. */
  timeoutMs?: number;
}

/** The part of a database that a transaction body may use. */
export interface Queryable {
  /** Runs one parameterised statement ($1, $2 …) and returns its rows. */
  query<T = Record<string, unknown>>(
    sql: string,
    params?: readonly unknown[],
    options?: QueryOptions,
  ): Promise<T[]>;
}

/**
 * The database port (PostgreSQL or PGlite): `bigint`/`count(*)` arrive as numbers, `timestamptz` as `Date`;
 * an unreachable or silent server is `MC_ERR_DATABASE_UNAVAILABLE`, SQL errors pass through unchanged.
 */
export interface Database extends Queryable {
  readonly kind: 'postgres' | 'pglite';
  /** The schema the adapter works in (its `search_path`); `public` by default. Optional so fakes stay valid. */
  readonly schema?: string;
  /** Runs `fn` in one transaction; rolls back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** True when a trivial query answers within `timeoutMs`; never throws. */
  ping(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

/** The adapters' `ping`. */
export async function answers(db: Queryable, timeoutMs: number): Promise<boolean> {
  try {
    const rows = await db.query<{ ok: number }>('SELECT 1 AS ok', [], { timeoutMs });
    return rows[0]?.ok === 1;
  } catch {
    return false;
  }
}
