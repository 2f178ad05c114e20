import { matchMarkets, parseMarketsRows } from '../model/index.js';
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

/** Each match's `GET /predict/markets/{id}` body (no matrix) and card summary; throws on an invalid file. */
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
