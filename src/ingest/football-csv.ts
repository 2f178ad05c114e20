import { FIELD_LIMITS } from '../domain/index.js';
import { type Field, instant, marketPrices, name, RowError, required, score, teams } from './fields.js';
import { regionName, seasonOf, tournamentName } from './names.js';
import type { PriceSet, RowRead, RowRejection } from './types.js';

/** Source label of odds from the football CSVs (averages over bookmakers). */
const FOOTBALL_CSV_SOURCE = 'football-csv';

/** Price columns of the football CSVs per market and kind, in MARKET_OUTCOMES order. */
const FOOTBALL_CSV_MARKETS = [
  { market: '1x2', kind: 'opening', columns: ['home_open', 'draw_open', 'away_open'] },
  { market: '1x2', kind: 'closing', columns: ['home_close', 'draw_close', 'away_close'] },
  { market: 'ou25', kind: 'opening', columns: ['over_2.5_open', 'under_2.5_open'] },
  { market: 'ou25', kind: 'closing', columns: ['over_2.5_close', 'under_2.5_close'] },
  { market: 'btts', kind: 'opening', columns: ['bts_yes_open', 'bts_no_open'] },
  { market: 'btts', kind: 'closing', columns: ['bts_yes_close', 'bts_no_close'] },
] as const;

/** The shared football CSV layout (test/fixtures/football/england.csv). */
export function isFootballCsvHeader(header: readonly string[]): boolean {
  const has = (c: string) => header.includes(c);
  return ['Date', 'country', 'league', 'HomeTeam', 'AwayTeam', 'FTHG', 'FTAG'].every(has);
}

export function readFootballCsvRow(get: Field): RowRead {
  const start = instant(required(get, 'Date'), 'Date');
  const season = get('Season') || seasonOf(start);
  if (!/^\d{4}(-\d{4})?$/.test(season)) throw new RowError(`Season is not YYYY-YYYY: "${season}"`);
  const prices: PriceSet[] = [];
  const rejected: RowRejection[] = [];
  for (const m of FOOTBALL_CSV_MARKETS) marketPrices(get, m.market, m.kind, m.columns, prices, rejected);
  return {
    match: {
      regionName: regionName(name(get, 'country', FIELD_LIMITS.regionName)),
      tournamentName: tournamentName(name(get, 'league', FIELD_LIMITS.tournamentName)),
      season,
      startTimeUtc: start,
      ...teams(required(get, 'HomeTeam'), required(get, 'AwayTeam')),
      ...score(get, ['FTHG'], ['FTAG']),
    },
    prices,
    source: FOOTBALL_CSV_SOURCE,
    rejected,
  };
}
