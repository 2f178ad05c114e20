import { MatchcastError } from '../domain/index.js';
import type { Queryable } from './database.js';

/** What a database holds: the synthetic league, or matches read from files (real data). */
export type DatasetKind = 'synthetic' | 'files';

/**
 * The data set a database holds, claimed by its first write of matches and checked by every later one
 * (same transaction), so the synthetic league and real files never mix. Odds-only files are not checked.
 */
export class DatasetIdentity {
  constructor(private readonly db: Queryable) {}

  /** Claims `kind` when nothing is claimed; MC_ERR_DATASET_MISMATCH when the database holds the other. */
  async claim(kind: DatasetKind, source: string): Promise<void> {
    await this.db.query(
      `INSERT INTO dataset_identity (singleton, kind, source) VALUES (true, $1, $2)
         ON CONFLICT (singleton) DO NOTHING`,
      [kind, source],
    );
    const rows = await this.db.query<{ kind: DatasetKind; source: string }>(
      'SELECT kind, source FROM dataset_identity',
    );
    const held = rows[0];
    if (held && held.kind !== kind) {
      throw new MatchcastError(
        'MC_ERR_DATASET_MISMATCH',
        held.kind === 'synthetic'
          ? `this database holds the synthetic league; the matches of ${source} were not loaded into it (use another DATA_DIR or database, or \`matchcast start --reset\`)`
          : `this database holds real data (first loaded from ${held.source}); the synthetic league was not mixed into it (use another DATA_DIR or database)`,
      );
    }
  }
}
