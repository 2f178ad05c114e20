import type { Queryable } from './database.js';

/**
 * Matches whose data moved before their served prediction caught up: recorded in the transaction that
 * moves the data, cleared once published over, so the next ingest or start finishes a killed re-prediction.
 */
export class PendingRepredictions {
  constructor(private readonly db: Queryable) {}

  async record(matchIds: readonly number[]): Promise<void> {
    if (matchIds.length === 0) return;
    await this.db.query(
      `INSERT INTO pending_repredictions (match_id) SELECT unnest($1::int[])
         ON CONFLICT (match_id) DO NOTHING`,
      [matchIds],
    );
  }

  async ids(): Promise<number[]> {
    const rows = await this.db.query<{ match_id: number }>(
      'SELECT match_id FROM pending_repredictions ORDER BY match_id',
    );
    return rows.map((r) => Number(r.match_id));
  }

  async clear(matchIds: readonly number[]): Promise<void> {
    if (matchIds.length === 0) return;
    await this.db.query('DELETE FROM pending_repredictions WHERE match_id = ANY($1::int[])', [matchIds]);
  }

  /** Clears what was recorded before `before` (a full run built as of then covers it). */
  async clearBefore(before: Date): Promise<void> {
    await this.db.query('DELETE FROM pending_repredictions WHERE recorded_at <= $1', [before]);
  }
}
