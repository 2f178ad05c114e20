import { type Field, hasAnyOdd, isoUtc, odd, RowError, readRow, required, score, teams } from './fields.js';
import { regionName, seasonOf, tournamentName } from './names.js';
import type { OddsInput, RowResult } from './types.js';

/** Source label of odds from the football CSVs (averages over bookmakers). */
export const FOOTBALL_CSV_SOURCE = 'football-csv';

/**
 * The CSVs of `shared/data/football`: `Date` (`YYYY-MM-DD HH:MM:SS`, UTC), `country`, `league`,
 * `Season`, `HomeTeam`, `AwayTeam`, `FTHG`, `FTAG`, opening/closing 1X2 odds `home_open` … `away_close`.
 */
export function isFootballCsvHeader(header: readonly string[]): boolean {
  const has = (c: string) => header.includes(c);
  return ['Date', 'country', 'league', 'HomeTeam', 'AwayTeam', 'FTHG', 'FTAG'].every(has);
}

export function readFootballCsvRow(get: Field): RowResult {
  return readRow(() => {
    const start = isoUtc(required(get, 'Date'), 'Date');
    const season = get('Season') || seasonOf(start);
    if (!/^\d{4}(-\d{4})?$/.test(season)) throw new RowError(`Season is not YYYY-YYYY: "${season}"`);
    const odds: OddsInput = {
      open_home: odd(get, 'home_open'),
      open_draw: odd(get, 'draw_open'),
      open_away: odd(get, 'away_open'),
      close_home: odd(get, 'home_close'),
      close_draw: odd(get, 'draw_close'),
      close_away: odd(get, 'away_close'),
      source: FOOTBALL_CSV_SOURCE,
    };
    return {
      ok: true,
      match: {
        regionName: regionName(required(get, 'country')),
        tournamentName: tournamentName(required(get, 'league')),
        season,
        startTimeUtc: start,
        ...teams(required(get, 'HomeTeam'), required(get, 'AwayTeam')),
        ...score(get, ['FTHG'], ['FTAG']),
      },
      odds: hasAnyOdd(odds) ? odds : null,
    };
  });
}
