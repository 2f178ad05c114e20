/** The relational database port: PostgreSQL (`pg`) or PGlite behind one small interface. */
export interface Database {
  readonly kind: 'postgres' | 'pglite';
  /** Runs one parameterised statement ($1, $2 …) and returns its rows. */
  query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /** Runs `fn` in one transaction; rolls back when it throws. */
  transaction<T>(fn: (tx: Pick<Database, 'query'>) => Promise<T>): Promise<T>;
  /** True when a trivial query answers within `timeoutMs`; never throws. */
  ping(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}
