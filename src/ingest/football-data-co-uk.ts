import { FIELD_LIMITS, type OddsKind, type OddsMarket, utcInstant } from '../domain/index.js';
import { dateError, type Field, firstOf, marketPrices, RowError, required, score, teams } from './fields.js';
import { londonToUtc } from './london-time.js';
import { DIVISIONS, regionName, seasonOf, tournamentName } from './names.js';
import type { PriceSet, RowRead, RowRejection } from './types.js';

/** Opening-odds column prefixes in order of preference: market average, Betbrain average, Pinnacle, Bet365. */
const OPENING_PREFIXES = ['Avg', 'BbAv', 'PS', 'B365'] as const;
const CLOSING_PREFIXES = ['AvgC', 'PSC', 'B365C'] as const;
/** Over/under 2.5 column prefixes (`<p>>2.5`, `<p><2.5`), in order of preference. */
const OU_OPENING_PREFIXES = ['Avg', 'BbAv', 'P', 'B365'] as const;
const OU_CLOSING_PREFIXES = ['AvgC', 'PC', 'B365C'] as const;

/** football-data.co.uk files (`Div`, `Date`, UK `Time` …) and its "extra leagues" layout (`Country` …). */
export function isFootballDataHeader(header: readonly string[]): boolean {
  const has = (c: string) => header.includes(c);
  return (
    has('Date') &&
    (has('HomeTeam') || has('Home')) &&
    (has('AwayTeam') || has('Away')) &&
    (has('Div') || (has('Country') && has('League')))
  );
}

function kickoff(get: Field): Date {
  const raw = required(get, 'Date');
  const m = /^(\d{1,2})\/(\d{1,2})\/(\d{2}|\d{4})$/.exec(raw);
  if (!m) throw dateError('Date', raw, 'dd/mm/yy or dd/mm/yyyy');
  const yy = Number(m[3]);
  // Two-digit years: the files start in 1993.
  const year = m[3].length === 4 ? yy : yy >= 90 ? 1900 + yy : 2000 + yy;
  const day = utcInstant(year, Number(m[2]), Number(m[1]));
  if (!day) throw dateError('Date', raw, 'dd/mm/yy or dd/mm/yyyy');
  const time = get('Time');
  if (time === undefined || time === '') return day; // date only: midnight UTC keeps the calendar date
  const t = /^(\d{1,2}):(\d{2})$/.exec(time);
  if (!t || !utcInstant(year, Number(m[2]), Number(m[1]), Number(t[1]), Number(t[2])))
    throw dateError('Time', time, 'HH:MM, 00:00–23:59');
  return londonToUtc(year, Number(m[2]), Number(m[1]), Number(t[1]), Number(t[2]));
}

function competition(get: Field): { regionName: string; tournamentName: string } {
  const country = get('Country');
  const league = get('League');
  if (country && league) {
    if (country.length > FIELD_LIMITS.regionName || league.length > FIELD_LIMITS.tournamentName)
      throw new RowError(`Country or League is longer than ${FIELD_LIMITS.regionName} characters`);
    return { regionName: regionName(country), tournamentName: tournamentName(league) };
  }
  const div = required(get, 'Div');
  if (div.length > 12) throw new RowError(`Div is not a division code: "${div.slice(0, 40)}…"`);
  const known = DIVISIONS.get(div);
  // An unknown division keeps its code as both names rather than dropping the row.
  return known
    ? { regionName: known.region, tournamentName: known.tournament }
    : { regionName: div, tournamentName: div };
}

/** The first complete bookmaker by preference; all are checked, so a bad price never hides behind one. */
function preferred(
  get: Field,
  market: OddsMarket,
  kind: OddsKind,
  prefixes: readonly string[],
  columns: (prefix: string) => string[],
  out: PriceSet[],
  rejected: RowRejection[],
): string | undefined {
  let found: string | undefined;
  for (const p of prefixes) {
    const sets: PriceSet[] = [];
    if (marketPrices(get, market, kind, columns(p), sets, rejected) && found === undefined) {
      found = p;
      out.push(sets[0]);
    }
  }
  return found;
}

const RESULT_OF = (h: number, a: number) => (h > a ? 'H' : h === a ? 'D' : 'A');

export function readFootballDataRow(get: Field): RowRead {
  const start = kickoff(get);
  const result = score(get, ['FTHG', 'HG'], ['FTAG', 'AG']);
  const ftr = firstOf(get, ['FTR', 'Res']);
  if (ftr !== undefined) {
    if (!/^[HDA]$/.test(ftr)) throw new RowError(`FTR is not H, D or A: "${ftr}"`);
    if (result.homeScore === null || result.awayScore === null)
      throw new RowError(`FTR "${ftr}" without goals`);
    if (ftr !== RESULT_OF(result.homeScore, result.awayScore))
      throw new RowError(`FTR "${ftr}" contradicts the score ${result.homeScore}-${result.awayScore}`);
  }
  const rawSeason = get('Season');
  const season = rawSeason ? rawSeason.replace('/', '-') : seasonOf(start);
  if (!/^\d{4}(-\d{4})?$/.test(season)) throw new RowError(`Season is not YYYY-YYYY: "${rawSeason}"`);

  const prices: PriceSet[] = [];
  const rejected: RowRejection[] = [];
  const x12 = (p: string) => [`${p}H`, `${p}D`, `${p}A`];
  const ou = (p: string) => [`${p}>2.5`, `${p}<2.5`];
  const open = preferred(get, '1x2', 'opening', OPENING_PREFIXES, x12, prices, rejected);
  const close = preferred(get, '1x2', 'closing', CLOSING_PREFIXES, x12, prices, rejected);
  preferred(get, 'ou25', 'opening', OU_OPENING_PREFIXES, ou, prices, rejected);
  preferred(get, 'ou25', 'closing', OU_CLOSING_PREFIXES, ou, prices, rejected);
  return {
    match: {
      ...competition(get),
      season,
      startTimeUtc: start,
      ...teams(
        required(get, get('HomeTeam') !== undefined ? 'HomeTeam' : 'Home'),
        required(get, get('AwayTeam') !== undefined ? 'AwayTeam' : 'Away'),
      ),
      ...result,
    },
    prices,
    source: oddsSource(open, close),
    rejected,
  };
}

/** `football-data.co.uk:Avg` when opening and closing come from one bookmaker, else both named. */
function oddsSource(open: string | undefined, close: string | undefined): string {
  const closeBase = close?.replace(/C$/, '');
  if (open && closeBase && open !== closeBase) return `football-data.co.uk:open=${open},close=${close}`;
  return `football-data.co.uk:${open ?? closeBase ?? 'none'}`;
}
