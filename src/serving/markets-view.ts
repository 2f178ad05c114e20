import { MATRIX_SIZE, type MarketsRow, marketsFromMatrix, scoreMatrix } from '../model/index.js';
import type { MatchMarkets } from '../schemas/index.js';
import { readParquet } from '../storage/index.js';
import { JsonIndexBuilder } from './json-index.js';

/** Card summary of one match's goals markets (additive card fields), with the prices behind them. */
function summaryOf(markets: MatchMarkets) {
  const top = markets.top_scores[0];
  return {
    expected_home_goals: markets.expected_home_goals,
    expected_away_goals: markets.expected_away_goals,
    over_2_5: markets.over['2.5'],
    btts_yes: markets.btts_yes,
    top_score: `${top.home}-${top.away}`,
    odd_over25: markets.odds.over25,
    odd_under25: markets.odds.under25,
    odd_btts_yes: markets.odds.btts_yes,
    odd_btts_no: markets.odds.btts_no,
  };
}

export type CardMarketsSummary = ReturnType<typeof summaryOf>;

/**
 * The markets of a markets file, computed once per load: each match's pre-serialised route body
 * (`GET /predict/markets/{id}`, matrix left out) and its card summary. Throws on an invalid file.
 */
export async function readMarketsFile(body: Buffer | Uint8Array) {
  const json = new JsonIndexBuilder();
  const summaries = new Map<number, CardMarketsSummary>();
  for (const row of parseMarketsRows(await readParquet(body))) {
    const markets = matchMarkets(row);
    json.push(row.match_id, JSON.stringify(markets));
    summaries.set(row.match_id, summaryOf(markets));
  }
  return { json: json.finish(), summaries };
}

/** Every market of one markets-file row (the route's 200 body, matrix left out). */
export function matchMarkets(row: MarketsRow): MatchMarkets {
  const mk = marketsFromMatrix(scoreMatrix(row.expected_home_goals, row.expected_away_goals, row.rho), 5);
  const under: Record<string, number> = {};
  for (const [line, p] of Object.entries(mk.over)) under[line] = 1 - p;
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
  const out: number[][] = [];
  for (let h = 0; h < MATRIX_SIZE; h++) {
    out.push(Array.from(flat.subarray(h * MATRIX_SIZE, (h + 1) * MATRIX_SIZE)));
  }
  return out;
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
    const cutoff =
      r.training_cutoff instanceof Date ? r.training_cutoff : new Date(String(r.training_cutoff));
    return {
      match_id: num('match_id'),
      expected_home_goals: num('expected_home_goals'),
      expected_away_goals: num('expected_away_goals'),
      rho: num('rho'),
      model_stage: stage,
      model_run_id: String(r.model_run_id),
      training_cutoff: cutoff,
      odd_over25: price(r.odd_over25),
      odd_under25: price(r.odd_under25),
      odd_btts_yes: price(r.odd_btts_yes),
      odd_btts_no: price(r.odd_btts_no),
    };
  });
}
