export type MatchStatus = 'scheduled' | 'finished';

export interface Match {
  /** Stable integer match id; survives re-ingests because upserts key on the natural key. */
  id: number;
  regionId: number;
  regionName: string;
  tournamentName: string;
  season: string;
  startTimeUtc: Date;
  homeTeamName: string;
  awayTeamName: string;
  status: MatchStatus;
  homeScore: number | null;
  awayScore: number | null;
}

export interface MatchKey {
  regionName: string;
  tournamentName: string;
  startTimeUtc: Date;
  homeTeamName: string;
  awayTeamName: string;
}

/** `<prefix>_<suffix>` for every prefix and suffix, prefix-major: the artifact's column order. */
const fields = <P extends string, S extends string>(prefixes: readonly P[], suffixes: readonly S[]) =>
  prefixes.flatMap((p) => suffixes.map((s) => `${p}_${s}` as const));

export const ODDS_1X2_FIELDS = fields(['odd', 'open', 'close'], ['home', 'draw', 'away']);

export const ODDS_GOALS_FIELDS = [
  ...fields(['odd'], ['over25', 'under25', 'btts_yes', 'btts_no']),
  ...fields(['open', 'close'], ['over25', 'under25']),
  ...fields(['open', 'close'], ['btts_yes', 'btts_no']),
];

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
