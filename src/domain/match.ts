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

export const ODDS_1X2_FIELDS = [
  'odd_home',
  'odd_draw',
  'odd_away',
  'open_home',
  'open_draw',
  'open_away',
  'close_home',
  'close_draw',
  'close_away',
] as const;

export const ODDS_GOALS_FIELDS = [
  'odd_over25',
  'odd_under25',
  'odd_btts_yes',
  'odd_btts_no',
  'open_over25',
  'open_under25',
  'close_over25',
  'close_under25',
  'open_btts_yes',
  'open_btts_no',
  'close_btts_yes',
  'close_btts_no',
] as const;

/** Every price field of an {@link OddsRecord}, 1X2 first: what the artifact stores and the gates check. */
export const ODDS_PRICE_FIELDS = [...ODDS_1X2_FIELDS, ...ODDS_GOALS_FIELDS] as const;

export const ODDS_TIME_FIELDS = ['odds_observed_at', 'open_observed_at', 'close_observed_at'] as const;

/** Bookmaker decimal odds of one match, never invented; goals prices and 1X2 times are additive. */
export type OddsRecord = {
  match_id: number;
  /** Where the odds came from, e.g. `football-csv`, `football-data.co.uk:B365`, `synthetic`. */
  source: string;
} & Record<(typeof ODDS_1X2_FIELDS)[number], number | null> &
  Partial<Record<(typeof ODDS_GOALS_FIELDS)[number], number | null>> &
  Partial<Record<(typeof ODDS_TIME_FIELDS)[number], Date | null>>;

/** Every field present and null: one object shape for all records, compact in V8 (see `rowShape`). */
const EMPTY_ODDS_RECORD: OddsRecord = {
  match_id: 0,
  ...Object.fromEntries([...ODDS_PRICE_FIELDS, ...ODDS_TIME_FIELDS].map((f) => [f, null])),
  source: '',
} as OddsRecord;

export function emptyOddsRecord(matchId: number, source = ''): OddsRecord {
  return { ...EMPTY_ODDS_RECORD, match_id: matchId, source };
}
