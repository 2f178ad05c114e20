import { FIELD_LIMITS, MatchcastError, type OddsMarket, oddsImplausibility } from '../../domain/index.js';
import { emptyParsedFile, type ParsedFile, type PriceSet } from '../../ingest/index.js';
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
  // Only the 2.5 line of the totals is a market the service knows.
  const at25 = (n: string) => (o: Json) => named(n)(o) && Number(o.point) === 2.5;
  const out =
    market.key === 'h2h'
      ? { market: '1x2' as const, prices: [price(named(home)), price(named('Draw')), price(named(away))] }
      : market.key === 'totals'
        ? { market: 'ou25' as const, prices: [price(at25('Over')), price(at25('Under'))] }
        : market.key === 'btts'
          ? { market: 'btts' as const, prices: [price(named('Yes')), price(named('No'))] }
          : null;
  return out?.prices.every((p) => p !== null) ? { market: out.market, prices: out.prices as number[] } : null;
}

/** An event as an odds row: bookmaker averages per market, never observed after the fetch (clock skew). */
function eventRow(
  e: Json,
  line: number,
  source: string,
  fetchedAt: Date,
  options: SourceOptions,
  out: ParsedFile,
) {
  const home = text(e.home_team);
  const away = text(e.away_team);
  const kickoff = time(e.commence_time);
  const sport = typeof e.sport_key === 'string' ? e.sport_key : '';
  const league =
    options.region && options.tournament
      ? { region: options.region, tournament: options.tournament }
      : SPORT_KEYS[sport];
  const skip = (reason: string) => {
    out.skipped.push({ file: out.file, code: 'MC_ERR_INVALID_ROW', line, reason });
  };
  if (!home || !away || !kickoff) return skip('event without home_team, away_team or commence_time');
  if (home.length > FIELD_LIMITS.teamName || away.length > FIELD_LIMITS.teamName)
    return skip(`a team name is longer than ${FIELD_LIMITS.teamName} characters`);
  if (!league)
    return skip(`unknown sport_key "${sport.slice(0, 60)}" (give the source --region and --tournament)`);
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
      const { sums, n, at: newest } = byMarket.get(p.market) ?? { sums: p.prices.map(() => 0), n: 0, at: 0 };
      byMarket.set(p.market, {
        sums: sums.map((s, i) => s + p.prices[i]),
        n: n + 1,
        at: Math.max(newest, at),
      });
    }
  }
  if (byMarket.size === 0) return skip('no complete h2h, totals 2.5 or btts prices');
  const prices = [...byMarket].map(
    ([market, acc]): PriceSet => ({
      market,
      kind: 'intermediate',
      prices: acc.sums.map((s) => Math.round((s / acc.n) * 1000) / 1000),
      observedAt: new Date(acc.at),
    }),
  );
  out.oddsRows.push({
    line,
    ref: {
      regionName: league.region,
      tournamentName: league.tournament,
      startTimeUtc: kickoff,
      homeTeamName: home,
      awayTeamName: away,
    },
    observedAt: new Date(Math.max(...prices.map((p) => p.observedAt?.getTime() ?? 0))),
    kind: 'intermediate',
    source: `${source}:${options.bookmaker || 'avg'}`,
    prices,
  });
}

/** A JSON odds feed as most odds APIs shape it; events name matches, they never create them. */
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
