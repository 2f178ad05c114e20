import type { Match, OddsRecord, Outcome } from '../domain/index.js';
import { outcomeFromScore } from '../domain/index.js';
import type { FeatureRow } from './feature-row.js';
import type { DemarginMethod } from './market.js';
import { demargin, overround } from './market.js';
import { DEFAULT_MARKET_RATING, type MarketRatingParams, marketRatingError } from './market-ratings.js';
import {
  DEFAULT_ELO,
  DEFAULT_PI,
  type EloParams,
  eloDelta,
  eloExpectedHome,
  type PiParams,
  piExpectedGoals,
  piUpdate,
} from './ratings.js';

/** Options of {@link buildFeatureRows}; every field has a default. */
export interface FeatureOptions {
  /** Elo parameters. Default {@link DEFAULT_ELO}. */
  elo?: Partial<EloParams>;
  /** Pi-rating parameters. Default {@link DEFAULT_PI}. */
  pi?: Partial<PiParams>;
  /** Matches in the form window. Default `6`. */
  formWindow?: number;
  /** Rest days are capped here (winter breaks say nothing about fatigue). Default `21`. */
  restCapDays?: number;
  /** Number of lowest-rated teams whose mean is a promoted team's prior. Default `3`. */
  promotedPriorOf?: number;
  /** De-margining method for every odds column. Default `power`. */
  demargin?: DemarginMethod;
  /** Market-implied ratings from earlier matches' closing odds. Default {@link DEFAULT_MARKET_RATING}. */
  marketRating?: Partial<MarketRatingParams>;
}

interface PlayedGame {
  points: number;
  gf: number;
  ga: number;
  home: boolean;
}

interface TeamState {
  elo: number;
  pi: { home: number; away: number };
  /** Played matches, newest last (only the last `formWindow` per venue are read). */
  games: PlayedGame[];
  lastFixtureMs: number | null;
  season: string | null;
  seasonPlayed: number;
  /** Market-implied supremacy rating (log-odds units) from earlier matches' closing odds. */
  mr: number;
}

interface RegionState {
  firstSeason: string;
  /** Season → teams with a fixture in it (the schedule is known in advance; no results involved). */
  teamsBySeason: Map<string, Set<string>>;
  seasonsSorted: string[];
  teams: Set<string>;
  /** Home term of the market-implied ratings (log-odds units). */
  mrHome: number;
}

const DAY_MS = 86_400_000;

/**
 * One feature row per match (past and future relative to `asOf`), computed only from information
 * available before its kick-off. Matches are processed in kick-off order; all matches with the same
 * kick-off time see the state before any of them. A match's result is used (label, rating and form
 * updates) only when it is finished and kicked off before `asOf`; later results are ignored even
 * when present. Rows are returned in kick-off order (ties by match id).
 */
export function buildFeatureRows(
  matches: readonly Match[],
  odds: ReadonlyMap<number, OddsRecord>,
  asOf: Date,
  options: FeatureOptions = {},
): FeatureRow[] {
  const elo: EloParams = { ...DEFAULT_ELO, ...options.elo };
  const pi: PiParams = { ...DEFAULT_PI, ...options.pi };
  const formWindow = options.formWindow ?? 6;
  const restCap = options.restCapDays ?? 21;
  const priorOf = options.promotedPriorOf ?? 3;
  const method = options.demargin ?? 'power';
  const mrp: MarketRatingParams = { ...DEFAULT_MARKET_RATING, ...options.marketRating };
  const asOfMs = asOf.getTime();

  const sorted = [...matches].sort(
    (a, b) => a.startTimeUtc.getTime() - b.startTimeUtc.getTime() || a.id - b.id,
  );
  const played = (m: Match): boolean =>
    m.status === 'finished' &&
    m.homeScore !== null &&
    m.awayScore !== null &&
    m.startTimeUtc.getTime() < asOfMs;
  // A past fixture that never finished did not happen; a future one is on the schedule.
  const onSchedule = (m: Match): boolean => played(m) || m.startTimeUtc.getTime() >= asOfMs;

  const regions = new Map<number, RegionState>();
  for (const m of sorted) {
    let r = regions.get(m.regionId);
    if (!r) {
      r = {
        firstSeason: m.season,
        teamsBySeason: new Map(),
        seasonsSorted: [],
        teams: new Set(),
        mrHome: mrp.initialHome,
      };
      regions.set(m.regionId, r);
    }
    if (m.season < r.firstSeason) r.firstSeason = m.season;
    let set = r.teamsBySeason.get(m.season);
    if (!set) {
      set = new Set();
      r.teamsBySeason.set(m.season, set);
    }
    set.add(m.homeTeamName);
    set.add(m.awayTeamName);
  }
  for (const r of regions.values()) r.seasonsSorted = [...r.teamsBySeason.keys()].sort();

  const teams = new Map<string, TeamState>();
  const keyOf = (regionId: number, name: string): string => `${regionId}\u0000${name}`;

  /** Mean of the `priorOf` lowest values among the region's rated teams (a league-low prior). */
  const lowPrior = (region: RegionState, regionId: number, pick: (t: TeamState) => number): number | null => {
    const vals: number[] = [];
    for (const name of region.teams) {
      const t = teams.get(keyOf(regionId, name));
      if (t) vals.push(pick(t));
    }
    if (vals.length < priorOf) return null;
    vals.sort((a, b) => a - b);
    let s = 0;
    for (let i = 0; i < priorOf; i++) s += vals[i];
    return s / priorOf;
  };

  /** Team state at a season's first fixture; promoted/new teams start at the league-low prior. */
  const teamFor = (m: Match, name: string): { state: TeamState; isNew: boolean } => {
    const region = regions.get(m.regionId)!;
    const key = keyOf(m.regionId, name);
    let t = teams.get(key);
    let isNew = false;
    if (!t || t.season !== m.season) {
      const idx = region.seasonsSorted.indexOf(m.season);
      const prev = idx > 0 ? region.teamsBySeason.get(region.seasonsSorted[idx - 1]) : undefined;
      isNew = m.season !== region.firstSeason && !prev?.has(name);
      if (!t) {
        t = {
          elo: elo.initial,
          pi: { home: 0, away: 0 },
          games: [],
          lastFixtureMs: null,
          season: m.season,
          seasonPlayed: 0,
          mr: 0,
        };
        teams.set(key, t);
      }
      if (isNew) {
        const e = lowPrior(region, m.regionId, (s) => s.elo);
        const ph = lowPrior(region, m.regionId, (s) => s.pi.home);
        const pa = lowPrior(region, m.regionId, (s) => s.pi.away);
        const mr = lowPrior(region, m.regionId, (s) => s.mr);
        // A returning team keeps its own rating when that is already below the league-low prior.
        const fresh = t.games.length === 0;
        if (e !== null) t.elo = fresh ? e : Math.min(t.elo, e);
        if (ph !== null) t.pi.home = fresh ? ph : Math.min(t.pi.home, ph);
        if (pa !== null) t.pi.away = fresh ? pa : Math.min(t.pi.away, pa);
        if (mr !== null) t.mr = fresh ? mr : Math.min(t.mr, mr);
      }
      t.season = m.season;
      t.seasonPlayed = 0;
      region.teams.add(name);
    }
    return { state: t, isNew };
  };

  const rows: FeatureRow[] = new Array(sorted.length);
  let i = 0;
  while (i < sorted.length) {
    const t0 = sorted[i].startTimeUtc.getTime();
    let j = i;
    while (j < sorted.length && sorted[j].startTimeUtc.getTime() === t0) j++;
    const group: Array<{ m: Match; h: TeamState; a: TeamState; row: FeatureRow }> = [];
    for (let g = i; g < j; g++) {
      const m = sorted[g];
      const h = teamFor(m, m.homeTeamName);
      const a = teamFor(m, m.awayTeamName);
      const row = featureRow(m, h.state, a.state, h.isNew, a.isNew);
      rows[g] = row;
      group.push({ m, h: h.state, a: a.state, row });
    }
    for (const { m, h, a, row } of group) {
      if (!onSchedule(m)) continue;
      h.lastFixtureMs = t0;
      a.lastFixtureMs = t0;
      if (!played(m)) continue;
      // Closing odds of a kicked-off match move the market-implied ratings (missing → no update); the
      // row already holds them de-margined.
      const { odds_close_home: ch, odds_close_draw: cd, odds_close_away: ca } = row;
      if (ch !== null && cd !== null && ca !== null) {
        const region = regions.get(m.regionId)!;
        const e = marketRatingError(region.mrHome + h.mr - a.mr, [ch, cd, ca]);
        h.mr += mrp.eta * e;
        a.mr -= mrp.eta * e;
        region.mrHome += mrp.etaRegion * e;
      }
      const gd = (m.homeScore as number) - (m.awayScore as number);
      const d = eloDelta(h.elo, a.elo, gd, elo);
      h.elo += d;
      a.elo -= d;
      piUpdate(h.pi, a.pi, gd, pi);
      const hp = gd > 0 ? 3 : gd === 0 ? 1 : 0;
      const ap = gd < 0 ? 3 : gd === 0 ? 1 : 0;
      h.games.push({ points: hp, gf: m.homeScore as number, ga: m.awayScore as number, home: true });
      a.games.push({ points: ap, gf: m.awayScore as number, ga: m.homeScore as number, home: false });
      h.seasonPlayed++;
      a.seasonPlayed++;
    }
    i = j;
  }
  return rows;

  function featureRow(m: Match, h: TeamState, a: TeamState, hNew: boolean, aNew: boolean): FeatureRow {
    const t = m.startTimeUtc.getTime();
    const hf = form(h.games, formWindow, null);
    const af = form(a.games, formWindow, null);
    const hv = form(h.games, formWindow, true);
    const av = form(a.games, formWindow, false);
    const o = odds.get(m.id);
    const open = o ? demargin(o.open_home, o.open_draw, o.open_away, method) : null;
    const close = o ? demargin(o.close_home, o.close_draw, o.close_away, method) : null;
    const pre = o ? demargin(o.odd_home, o.odd_draw, o.odd_away, method) : null;
    // The model's market view: opening odds (known early), else whatever pre-match odds the source has.
    const mkt = open ?? pre;
    const mktOver = o
      ? open
        ? overround(o.open_home, o.open_draw, o.open_away)
        : overround(o.odd_home, o.odd_draw, o.odd_away)
      : null;
    const mrSup = regions.get(m.regionId)!.mrHome + h.mr - a.mr;
    const isPlayed = played(m);
    const label: Outcome | null = isPlayed
      ? outcomeFromScore(m.homeScore as number, m.awayScore as number)
      : null;
    const row = {
      match_id: m.id,
      start_time_utc: m.startTimeUtc,
      region_id: m.regionId,
      season: m.season,
      home_team_name: m.homeTeamName,
      away_team_name: m.awayTeamName,
      label,
      is_future: t >= asOfMs,
      as_of: asOf,
      elo_home: h.elo,
      elo_away: a.elo,
      elo_diff: h.elo - a.elo,
      elo_expected_home: eloExpectedHome(h.elo, a.elo, elo.homeAdvantage),
      pi_home: h.pi.home,
      pi_away: a.pi.away,
      pi_expected_gd: piExpectedGoals(h.pi.home, pi.c) - piExpectedGoals(a.pi.away, pi.c),
      form_points_home: hf?.points ?? null,
      form_points_away: af?.points ?? null,
      form_gf_home: hf?.gf ?? null,
      form_ga_home: hf?.ga ?? null,
      form_gf_away: af?.gf ?? null,
      form_ga_away: af?.ga ?? null,
      form_venue_points_home: hv?.points ?? null,
      form_venue_points_away: av?.points ?? null,
      form_venue_gd_home: hv ? hv.gf - hv.ga : null,
      form_venue_gd_away: av ? av.gf - av.ga : null,
      rest_days_home: h.lastFixtureMs === null ? null : Math.min(restCap, (t - h.lastFixtureMs) / DAY_MS),
      rest_days_away: a.lastFixtureMs === null ? null : Math.min(restCap, (t - a.lastFixtureMs) / DAY_MS),
      season_played_home: h.seasonPlayed,
      season_played_away: a.seasonPlayed,
      new_team_home: hNew ? 1 : 0,
      new_team_away: aNew ? 1 : 0,
      mkt_home: mkt ? mkt[0] : null,
      mkt_draw: mkt ? mkt[1] : null,
      mkt_away: mkt ? mkt[2] : null,
      mkt_logit_home_away: mkt ? Math.log(mkt[0] / mkt[2]) : null,
      mkt_logit_draw: mkt ? Math.log(mkt[1] / (1 - mkt[1])) : null,
      mkt_log_draw_away: mkt ? Math.log(mkt[1] / mkt[2]) : null,
      mkt_overround: mkt ? mktOver : null,
      mkt_missing: mkt ? 0 : 1,
      mr_sup: mrSup,
      mr_sup_gap: mkt ? mrSup - Math.log(mkt[0] / mkt[2]) : null,
      odds_open_home: open ? open[0] : null,
      odds_open_draw: open ? open[1] : null,
      odds_open_away: open ? open[2] : null,
      odds_close_home: close ? close[0] : null,
      odds_close_draw: close ? close[1] : null,
      odds_close_away: close ? close[2] : null,
      odds_pre_home: pre ? pre[0] : null,
      odds_pre_draw: pre ? pre[1] : null,
      odds_pre_away: pre ? pre[2] : null,
    } satisfies FeatureRow;
    return row;
  }
}

/** Per-game means over the last `n` played games (optionally at one venue); null with no history. */
function form(
  games: readonly PlayedGame[],
  n: number,
  home: boolean | null,
): { points: number; gf: number; ga: number } | null {
  let cnt = 0;
  let pts = 0;
  let gf = 0;
  let ga = 0;
  for (let k = games.length - 1; k >= 0 && cnt < n; k--) {
    const g = games[k];
    if (home !== null && g.home !== home) continue;
    cnt++;
    pts += g.points;
    gf += g.gf;
    ga += g.ga;
  }
  if (cnt === 0) return null;
  return { points: pts / cnt, gf: gf / cnt, ga: ga / cnt };
}
