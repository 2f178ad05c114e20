import { FIELD_LIMITS, MatchcastError, type OddsMarket, oddsImplausibility } from '../../domain/index.js';
import { emptyParsedFile, type ParsedFile, type ParsedOddsRow, type PriceSet } from '../../ingest/index.js';
import type { SourceKind, SourceOptions } from '../types.js';

/** `sport_key`s of the common odds APIs → region and tournament as the results files name them. */
const SPORT_KEYS: Record<string, { region: string; tournament: string }> = {
  soccer_epl: { region: 'England', tournament: 'Premier League' },
  soccer_efl_champ: { region: 'England', tournament: 'Championship' },
  soccer_germany_bundesliga: { region: 'Germany', tournament: 'Bundesliga' },
  soccer_germany_bundesliga2: { region: 'Germany', tournament: '2. Bundesliga' },
  soccer_spain_la_liga: { region: 'Spain', tournament: 'LaLiga' },
  soccer_spain_segunda_division: { region: 'Spain', tournament: 'LaLiga2' },
  soccer_italy_serie_a: { region: 'Italy', tournament: 'Serie A' },
  soccer_italy_serie_b: { region: 'Italy', tournament: 'Serie B' },
  soccer_france_ligue_one: { region: 'France', tournament: 'Ligue 1' },
  soccer_france_ligue_two: { region: 'France', tournament: 'Ligue 2' },
  soccer_netherlands_eredivisie: { region: 'Netherlands', tournament: 'Eredivisie' },
  soccer_belgium_first_div: { region: 'Belgium', tournament: 'Jupiler Pro League' },
  soccer_portugal_primeira_liga: { region: 'Portugal', tournament: 'Primeira Liga' },
  soccer_egypt_premier_league: { region: 'Egypt', tournament: 'Premier League' },
};

/** An event, bookmaker, market or outcome of the feed: each field is checked where it is read. */
type Json = Record<string, unknown>;

const text = (v: unknown): string | null =>
  typeof v === 'string' && v.trim() !== '' ? v.trim().replace(/\s+/g, ' ') : null;
const time = (v: unknown): Date | null => {
  if (typeof v === 'number' && Number.isFinite(v)) return new Date(v * 1000);
  if (typeof v !== 'string') return null;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? null : d;
};
const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** One bookmaker's prices of one market in MARKET_OUTCOMES order, or null when incomplete. */
function pricesOf(market: Json, home: string, away: string): { market: OddsMarket; prices: number[] } | null {
  const outcomes = Array.isArray(market.outcomes) ? (market.outcomes as Json[]) : [];
  const price = (pick: (o: Json) => boolean): number | null => {
    const o = outcomes.find(pick);
    return o && typeof o.price === 'number' ? o.price : null;
  };
  const named = (n: string) => (o: Json) => typeof o.name === 'string' && same(o.name, n);
  let out: { market: OddsMarket; prices: (number | null)[] };
  if (market.key === 'h2h')
    out = { market: '1x2', prices: [price(named(home)), price(named('Draw')), price(named(away))] };
  else if (market.key === 'totals') {
    // Only the 2.5 line is a market the service knows.
    const at25 = (n: string) => (o: Json) => named(n)(o) && Number(o.point) === 2.5;
    out = { market: 'ou25', prices: [price(at25('Over')), price(at25('Under'))] };
  } else if (market.key === 'btts')
    out = { market: 'btts', prices: [price(named('Yes')), price(named('No'))] };
  else return null;
  return out.prices.every((p) => p !== null) ? { market: out.market, prices: out.prices as number[] } : null;
}

/**
 * One event as an odds row: per market the average over the complete bookmakers (or `options.bookmaker`),
 * observed at their newest `last_update` but never after the fetch (a clock ahead of ours cannot date it).
 */
function eventRow(
  e: Json,
  line: number,
  source: string,
  fetchedAt: Date,
  options: SourceOptions,
  out: ParsedFile,
): void {
  const home = text(e.home_team);
  const away = text(e.away_team);
  const kickoff = time(e.commence_time);
  const sport = typeof e.sport_key === 'string' ? e.sport_key : '';
  const league =
    options.region && options.tournament
      ? { region: options.region, tournament: options.tournament }
      : SPORT_KEYS[sport];
  const skip = (reason: string): void => {
    out.skipped.push({ file: out.file, code: 'MC_ERR_INVALID_ROW', line, reason });
  };
  if (!home || !away || !kickoff) {
    skip('event without home_team, away_team or commence_time');
    return;
  }
  if (home.length > FIELD_LIMITS.teamName || away.length > FIELD_LIMITS.teamName) {
    skip(`a team name is longer than ${FIELD_LIMITS.teamName} characters`);
    return;
  }
  if (!league) {
    skip(`unknown sport_key "${sport.slice(0, 60)}" (give the source --region and --tournament)`);
    return;
  }
  const books = (Array.isArray(e.bookmakers) ? (e.bookmakers as Json[]) : []).filter(
    (b) => !options.bookmaker || b.key === options.bookmaker,
  );
  const byMarket = new Map<OddsMarket, { sums: number[]; n: number; at: number }>();
  for (const b of books) {
    for (const m of Array.isArray(b.markets) ? (b.markets as Json[]) : []) {
      const p = pricesOf(m, home, away);
      if (!p) continue;
      const why = oddsImplausibility(p.market, p.prices);
      if (why) {
        out.oddsRejected.push({ file: out.file, line, market: p.market, kind: 'intermediate', reason: why });
        continue;
      }
      const at = Math.min(
        (time(m.last_update) ?? time(b.last_update) ?? fetchedAt).getTime(),
        fetchedAt.getTime(),
      );
      const acc = byMarket.get(p.market) ?? { sums: p.prices.map(() => 0), n: 0, at: 0 };
      p.prices.forEach((x, i) => {
        acc.sums[i] += x;
      });
      acc.n++;
      acc.at = Math.max(acc.at, at);
      byMarket.set(p.market, acc);
    }
  }
  if (byMarket.size === 0) {
    skip('no complete h2h, totals 2.5 or btts prices');
    return;
  }
  const prices: PriceSet[] = [];
  let observed = 0;
  for (const [market, acc] of byMarket) {
    const observedAt = new Date(acc.at);
    prices.push({
      market,
      kind: 'intermediate',
      prices: acc.sums.map((s) => Math.round((s / acc.n) * 1000) / 1000),
      observedAt,
    });
    observed = Math.max(observed, acc.at);
  }
  const row: ParsedOddsRow = {
    line,
    ref: {
      regionName: league.region,
      tournamentName: league.tournament,
      startTimeUtc: kickoff,
      homeTeamName: home,
      awayTeamName: away,
    },
    observedAt: new Date(observed),
    kind: 'intermediate',
    source: options.bookmaker ? `${source}:${options.bookmaker}` : `${source}:avg`,
    prices,
  };
  out.oddsRows.push(row);
}

/**
 * A JSON odds feed as most odds APIs shape it: events (an array or `{ data }`) with `bookmakers[]` of
 * `markets[]` (`h2h`, `totals`, `btts`) of `outcomes[]`. Events name matches, they never create them.
 */
export const oddsApiJson: SourceKind = {
  name: 'odds-api-json',
  description: 'JSON odds feed (events with commence_time, home/away team, bookmakers → h2h, totals, btts)',
  body: 'json',
  grows: false,
  parse(body, ctx) {
    let doc: unknown;
    try {
      doc = JSON.parse(body);
    } catch (err) {
      const cut = !/[\]}]\s*$/.test(body);
      throw new MatchcastError(
        cut ? 'MC_ERR_SOURCE_TRUNCATED' : 'MC_ERR_SOURCE_LAYOUT_CHANGED',
        `${ctx.file}: the body is not JSON${cut ? ' (it ends mid-document)' : ''}: ${(err as Error).message}`,
      );
    }
    const events = Array.isArray(doc) ? doc : (doc as { data?: unknown } | null)?.data;
    if (!Array.isArray(events))
      throw new MatchcastError(
        'MC_ERR_SOURCE_LAYOUT_CHANGED',
        `${ctx.file}: expected an array of events (or { "data": [...] })`,
      );
    const out = { ...emptyParsedFile(ctx.file, 'odds-only'), rowsRead: events.length };
    events.forEach((e, i) => {
      if (e === null || typeof e !== 'object')
        out.skipped.push({
          file: ctx.file,
          code: 'MC_ERR_INVALID_ROW',
          line: i + 1,
          reason: 'not an event object',
        });
      else eventRow(e as Json, i + 1, ctx.file, ctx.fetchedAt, ctx.options, out);
    });
    return out;
  },
};
