import { MATRIX_SIZE } from '../../features/index.js';
import type { MatchMarkets } from '../../schemas/index.js';
import type { ParquetColumn } from '../../storage/index.js';
import { marketsFromMatrix } from './markets.js';
import { scoreMatrix } from './score-matrix.js';

/** Column contract of `predictions/markets.parquet` (KEYS.markets): one row per match. */
export const MARKETS_COLUMNS: readonly ParquetColumn[] = [
  { name: 'match_id', type: 'int64' },
  { name: 'expected_home_goals', type: 'double' },
  { name: 'expected_away_goals', type: 'double' },
  { name: 'rho', type: 'double' },
  { name: 'model_stage', type: 'string' },
  { name: 'model_run_id', type: 'string' },
  { name: 'training_cutoff', type: 'timestamp' },
  { name: 'odd_over25', type: 'double' },
  { name: 'odd_under25', type: 'double' },
  { name: 'odd_btts_yes', type: 'double' },
  { name: 'odd_btts_no', type: 'double' },
];

/** One row of the markets file: the score matrix's parameters; every market follows from them. */
export interface MarketsRow {
  match_id: number;
  expected_home_goals: number;
  expected_away_goals: number;
  rho: number;
  /** `champion` (the registered goals version) or `backtest` (an out-of-sample walk-forward fold). */
  model_stage: 'champion' | 'backtest';
  model_run_id: string;
  training_cutoff: Date;
  /** The prices a user sees (closing when known, else opening), for edges on cards. */
  odd_over25: number | null;
  odd_under25: number | null;
  odd_btts_yes: number | null;
  odd_btts_no: number | null;
}

/** Every market of one markets-file row (the route's 200 body, matrix left out). */
export function matchMarkets(row: MarketsRow): MatchMarkets {
  const mk = marketsFromMatrix(scoreMatrix(row.expected_home_goals, row.expected_away_goals, row.rho), 5);
  const under = Object.fromEntries(Object.entries(mk.over).map(([line, p]) => [line, 1 - p]));
  return {
    match_id: row.match_id,
    expected_home_goals: row.expected_home_goals,
    expected_away_goals: row.expected_away_goals,
    rho: row.rho,
    proba_home: mk.proba_home,
    proba_draw: mk.proba_draw,
    proba_away: mk.proba_away,
    over: mk.over,
    under,
    btts_yes: mk.btts_yes,
    btts_no: 1 - mk.btts_yes,
    dnb_home: mk.dnb_home,
    dnb_away: mk.dnb_away,
    asian: mk.asian,
    top_scores: mk.top_scores,
    model_stage: row.model_stage,
    model_run_id: row.model_run_id,
    training_cutoff: row.training_cutoff.toISOString(),
    odds: {
      over25: row.odd_over25,
      under25: row.odd_under25,
      btts_yes: row.odd_btts_yes,
      btts_no: row.odd_btts_no,
    },
  };
}

/** The 11 × 11 score matrix as nested arrays (row = home goals). */
export function scoreMatrixRows(
  m: Pick<MatchMarkets, 'expected_home_goals' | 'expected_away_goals' | 'rho'>,
) {
  const flat = scoreMatrix(m.expected_home_goals, m.expected_away_goals, m.rho);
  return Array.from({ length: MATRIX_SIZE }, (_, h) =>
    Array.from(flat.subarray(h * MATRIX_SIZE, (h + 1) * MATRIX_SIZE)),
  );
}

function price(v: unknown): number | null {
  const n = typeof v === 'number' ? v : v === null || v === undefined ? Number.NaN : Number(v);
  return Number.isFinite(n) && n > 1 ? n : null;
}

/** Parses the rows of a markets file (`predictions/markets.parquet`); throws on a malformed row. */
export function parseMarketsRows(rows: Record<string, unknown>[]): MarketsRow[] {
  return rows.map((r) => {
    const num = (k: string) => {
      const v = Number(r[k]);
      if (!Number.isFinite(v))
        throw new Error(`markets file: ${k} is not a number in match ${String(r.match_id)}`);
      return v;
    };
    const stage = String(r.model_stage);
    if (stage !== 'champion' && stage !== 'backtest') throw new Error(`markets file: model_stage ${stage}`);
    return {
      match_id: num('match_id'),
      expected_home_goals: num('expected_home_goals'),
      expected_away_goals: num('expected_away_goals'),
      rho: num('rho'),
      model_stage: stage,
      model_run_id: String(r.model_run_id),
      training_cutoff:
        r.training_cutoff instanceof Date ? r.training_cutoff : new Date(String(r.training_cutoff)),
      odd_over25: price(r.odd_over25),
      odd_under25: price(r.odd_under25),
      odd_btts_yes: price(r.odd_btts_yes),
      odd_btts_no: price(r.odd_btts_no),
    };
  });
}
