import type { MatchUpsert } from '../db/index.js';
import { FIELD_LIMITS, isOddsKind, type OddsKind } from '../domain/index.js';
import { cleanName, type Field, firstOf, instant, marketPrices, RowError, required } from './fields.js';
import { regionName, tournamentName } from './names.js';
import type { PriceSet, RowRejection } from './types.js';

/** Source label of an odds-only file without a `source` column. */
const ODDS_FILE_SOURCE = 'odds-file';

/** Price columns of an odds-only file per market, in MARKET_OUTCOMES order (the odds artifact's names). */
const ODDS_ONLY_MARKETS = [
  { market: '1x2', columns: ['odd_home', 'odd_draw', 'odd_away'] },
  { market: 'ou25', columns: ['odd_over25', 'odd_under25'] },
  { market: 'btts', columns: ['odd_btts_yes', 'odd_btts_no'] },
] as const;

const KEY_COLUMNS = {
  region: ['region', 'country'],
  tournament: ['tournament', 'league'],
  kickoff: ['kickoff', 'Date'],
  home: ['home_team', 'HomeTeam'],
  away: ['away_team', 'AwayTeam'],
} as const;

/** Odds-only files: prices at one `observed_at` a row, the match by `match_id` or KEY_COLUMNS. */
export function isOddsOnlyHeader(header: readonly string[]): boolean {
  const has = (c: string) => header.includes(c);
  if (!has('observed_at') || has('FTHG') || has('HG')) return false;
  const byKey = Object.values(KEY_COLUMNS).every((alts) => alts.some(has));
  return has('match_id') || byKey;
}

/** What makes two rows one match: region, tournament, kick-off and the teams. */
export type MatchKey = Omit<MatchUpsert, 'season' | 'status' | 'homeScore' | 'awayScore'>;

/** The match an odds row refers to: its id, or its natural key (resolved against the DB by ingest). */
type OddsMatchRef = { matchId: number } | MatchKey;

export interface ParsedOddsRow {
  line: number;
  ref: OddsMatchRef;
  observedAt: Date;
  kind: OddsKind;
  source: string;
  prices: PriceSet[];
}

export function readOddsOnlyRow(get: Field): { row: Omit<ParsedOddsRow, 'line'>; rejected: RowRejection[] } {
  const observedAt = instant(required(get, 'observed_at'), 'observed_at');
  const rawKind = get('kind') || 'intermediate';
  if (!isOddsKind(rawKind))
    throw new RowError(`kind is not opening, intermediate or closing: "${rawKind.slice(0, 40)}"`);
  const source = cleanName(get('source') || ODDS_FILE_SOURCE);
  if (source.length > FIELD_LIMITS.source)
    throw new RowError(`source is longer than ${FIELD_LIMITS.source} characters`);
  let ref: OddsMatchRef;
  const id = get('match_id');
  if (id !== undefined && id !== '') {
    if (!/^\d{1,10}$/.test(id) || !Number.isSafeInteger(Number(id)))
      throw new RowError(`match_id is not a match id: "${id.slice(0, 40)}"`);
    ref = { matchId: Number(id) };
  } else {
    const col = (alts: readonly string[]) => {
      const v = firstOf(get, alts);
      if (v === undefined) throw new RowError(`missing ${alts.join(' or ')}`);
      return v;
    };
    const region = cleanName(col(KEY_COLUMNS.region));
    const tournament = cleanName(col(KEY_COLUMNS.tournament));
    const home = cleanName(col(KEY_COLUMNS.home));
    const away = cleanName(col(KEY_COLUMNS.away));
    if (
      region.length > FIELD_LIMITS.regionName ||
      tournament.length > FIELD_LIMITS.tournamentName ||
      home.length > FIELD_LIMITS.teamName ||
      away.length > FIELD_LIMITS.teamName
    )
      throw new RowError(`a match-key field is longer than ${FIELD_LIMITS.teamName} characters`);
    ref = {
      regionName: regionName(region),
      tournamentName: tournamentName(tournament),
      startTimeUtc: instant(col(KEY_COLUMNS.kickoff), 'kickoff'),
      homeTeamName: home,
      awayTeamName: away,
    };
  }
  const prices: PriceSet[] = [];
  const rejected: RowRejection[] = [];
  for (const m of ODDS_ONLY_MARKETS) {
    if (marketPrices(get, m.market, rawKind, m.columns, prices, rejected))
      prices[prices.length - 1].observedAt = observedAt;
  }
  if (prices.length === 0 && rejected.length === 0) throw new RowError('no prices in the row');
  return { row: { ref, observedAt, kind: rawKind, source, prices }, rejected };
}
