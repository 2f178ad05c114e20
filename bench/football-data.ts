import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import type { Match, OddsRecord } from '../src/domain/index.js';

/** Default location of the real data (one CSV per country). */
export const FOOTBALL_DATA_DIR = process.env.FOOTBALL_DATA_DIR ?? '/work/shared/data/football';

/**
 * Reads the real CSVs directly: files in alphabetical order, match ids 1..N by row order, region id =
 * 1-based index of the country among the files. Odds: `odd_*` = closing when known else opening.
 */
export function loadFootballData(dir = FOOTBALL_DATA_DIR): {
  matches: Match[];
  odds: Map<number, OddsRecord>;
} {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.csv'))
    .sort();
  const matches: Match[] = [];
  const odds = new Map<number, OddsRecord>();
  let id = 0;
  files.forEach((file, fi) => {
    const records = parse(readFileSync(join(dir, file)), { columns: true, skip_empty_lines: true }) as Record<
      string,
      string
    >[];
    for (const r of records) {
      id++;
      const num = (k: string): number | null => {
        const v = r[k];
        if (v === undefined || v === '') return null;
        const n = Number(v);
        return Number.isFinite(n) ? n : null;
      };
      const hs = num('FTHG');
      const as = num('FTAG');
      matches.push({
        id,
        regionId: fi + 1,
        regionName: r.country,
        tournamentName: r.league,
        season: r.Season,
        startTimeUtc: new Date(`${r.Date.replace(' ', 'T')}Z`),
        homeTeamName: r.HomeTeam,
        awayTeamName: r.AwayTeam,
        status: hs !== null && as !== null ? 'finished' : 'scheduled',
        homeScore: hs,
        awayScore: as,
      });
      const oh = num('home_open');
      const od = num('draw_open');
      const oa = num('away_open');
      const ch = num('home_close');
      const cd = num('draw_close');
      const ca = num('away_close');
      const closeKnown = ch !== null && cd !== null && ca !== null;
      odds.set(id, {
        match_id: id,
        odd_home: closeKnown ? ch : oh,
        odd_draw: closeKnown ? cd : od,
        odd_away: closeKnown ? ca : oa,
        open_home: oh,
        open_draw: od,
        open_away: oa,
        close_home: ch,
        close_draw: cd,
        close_away: ca,
        source: 'football-csv',
      });
    }
  });
  return { matches, odds };
}

/** Adds the O/U 2.5 and BTTS opening/closing prices of the CSVs to `odds` (ids as {@link loadFootballData}). */
export function addGoalsOdds(odds: Map<number, OddsRecord>, dir = FOOTBALL_DATA_DIR): void {
  let id = 0;
  const n = (v: string | undefined) => (v ? Number(v) : null);
  for (const f of readdirSync(dir)
    .filter((f) => f.endsWith('.csv'))
    .sort()) {
    for (const r of parse(readFileSync(join(dir, f)), { columns: true, skip_empty_lines: true }) as Record<
      string,
      string
    >[]) {
      id++;
      Object.assign(odds.get(id)!, {
        open_over25: n(r['over_2.5_open']),
        open_under25: n(r['under_2.5_open']),
        close_over25: n(r['over_2.5_close']),
        close_under25: n(r['under_2.5_close']),
        open_btts_yes: n(r.bts_yes_open),
        open_btts_no: n(r.bts_no_open),
        close_btts_yes: n(r.bts_yes_close),
        close_btts_no: n(r.bts_no_close),
      });
    }
  }
}
