/** A match as the relational DB holds it (ARCHITECTURE §3). */
export type MatchStatus = 'scheduled' | 'finished';

export interface Match {
  /** Stable integer match id; survives re-ingests because upserts key on the natural key. */
  id: number;
  regionId: number;
  regionName: string;
  tournamentName: string;
  /** Season label such as `2022-2023`. */
  season: string;
  startTimeUtc: Date;
  homeTeamName: string;
  awayTeamName: string;
  status: MatchStatus;
  /** Null until the match is finished. */
  homeScore: number | null;
  awayScore: number | null;
}

/** The natural key that makes ingest idempotent. */
export interface MatchKey {
  regionName: string;
  tournamentName: string;
  startTimeUtc: Date;
  homeTeamName: string;
  awayTeamName: string;
}

/** Bookmaker 1X2 odds for one match (decimal). Any odd may be missing; missing is never invented. */
export interface OddsRecord {
  match_id: number;
  /** The pre-match odds a user would see: closing when known, else opening. */
  odd_home: number | null;
  odd_draw: number | null;
  odd_away: number | null;
  open_home: number | null;
  open_draw: number | null;
  open_away: number | null;
  close_home: number | null;
  close_draw: number | null;
  close_away: number | null;
  /** Where the odds came from, e.g. `football-csv`, `football-data.co.uk:B365`, `synthetic`. */
  source: string;
}
