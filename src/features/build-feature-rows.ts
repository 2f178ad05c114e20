import type { Match, OddsObservation, OddsRecord } from '../domain/index.js';
import {
  ODDS_MARKETS,
  OddsTimeline,
  OPENING_LEAD_MS,
  outcomeFromScore,
  RESULT_LAG_MS,
} from '../domain/index.js';
import {
  type FeatureGroup,
  type FeatureOptions,
  type FeatureSettings,
  type MatchContext,
  type MatchPrices,
  type ResultContext,
  resolveFeatureOptions,
} from './feature-group.js';
import { emptyFeatureRow, type FeatureRow } from './feature-row.js';
import { FEATURE_GROUP_LIST as GROUPS } from './groups/index.js';
import { demargin, demarginPrices, overround } from './market.js';

export type { FeatureOptions } from './feature-group.js';

/** A team's schedule bookkeeping plus one state per feature group (same order as the group list). */
interface TeamSlot {
  season: string | null;
  /** 0 = never played: a promoted team then takes the prior outright. */
  played: number;
  states: unknown[];
}

interface RegionSlot {
  firstSeason: string;
  /** Season → teams with a fixture in it (the schedule is known in advance; no results involved). */
  teamsBySeason: Map<string, Set<string>>;
  seasonsSorted: string[];
  teams: Set<string>;
  states: unknown[];
}

/** Every team's and region's group state before `at`, with the inputs it came from (for resuming). */
export interface FeatureCheckpoint {
  readonly at: number;
  readonly settingsKey: string;
  /** The matches before `at` in build order, with the odds each one saw. */
  readonly matches: readonly Match[];
  readonly records: ReadonlyArray<OddsRecord | undefined>;
  readonly observations: ReadonlyArray<readonly (readonly OddsObservation[])[]>;
  /** Per region: how many of its seasons lie up to the last one before `at`, and their `scheduleKey`. */
  readonly schedule: ReadonlyMap<number, { seasons: number; key: string }>;
  readonly teams: ReadonlyMap<string, TeamSlot>;
  readonly regions: ReadonlyMap<number, { teams: string[]; states: unknown[] }>;
  /** Played matches before `at` whose results are not folded in yet, in the order they become known. */
  readonly pending: readonly PendingResult[];
}

interface PendingResult {
  readonly knownAt: number;
  readonly ctx: Ctx;
}

/** Incremental builds: start from a checkpoint whose inputs are unchanged (rows before it are left out). */
export interface FeatureResume {
  /** Used when every input before its instant is unchanged (else the build starts from scratch). */
  from?: FeatureCheckpoint | null;
  /** Take a checkpoint before the first match kicking off at or after this instant (at most `asOf`). */
  takeAt?: Date;
  /** Out: the checkpoint taken, and whether the build started from `from`. */
  taken?: FeatureCheckpoint | null;
  resumed?: boolean;
}

/** Checkpoints whose state a build took over (moved, not copied): they can never be resumed again. */
const consumed = new WeakSet<FeatureCheckpoint>();

/** What decides the state before a checkpoint (the horizon's instant is only checked to be after it). */
function settingsKeyOf(settings: FeatureSettings): string {
  const h = settings.horizon;
  return JSON.stringify({ ...settings, horizon: typeof h === 'object' ? 'at' : h });
}

function sameMatch(a: Match, b: Match): boolean {
  return (
    a.id === b.id &&
    a.startTimeUtc.getTime() === b.startTimeUtc.getTime() &&
    a.regionId === b.regionId &&
    a.season === b.season &&
    a.homeTeamName === b.homeTeamName &&
    a.awayTeamName === b.awayTeamName &&
    a.status === b.status &&
    a.homeScore === b.homeScore &&
    a.awayScore === b.awayScore
  );
}

function sameField(a: unknown, b: unknown): boolean {
  if (a instanceof Date || b instanceof Date)
    return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  return (a ?? null) === (b ?? null);
}

function sameRecord(a: OddsRecord | undefined, b: OddsRecord | undefined): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  const keys = Object.keys(a) as (keyof OddsRecord)[];
  return keys.length === Object.keys(b).length && keys.every((k) => sameField(a[k], b[k]));
}

const sameObservation = (x: OddsObservation, y: OddsObservation): boolean =>
  x === y ||
  (x.observed_at.getTime() === y.observed_at.getTime() &&
    x.kind === y.kind &&
    x.source === y.source &&
    x.prices.length === y.prices.length &&
    x.prices.every((p, k) => p === y.prices[k]));

/** What decides promotions up to a region's `n`-th season (its last roster only decides the next). */
function scheduleKey(r: RegionSlot, n: number): string {
  const seasons = r.seasonsSorted.slice(0, n);
  const rosters = seasons.slice(0, -1).map((x) => [...(r.teamsBySeason.get(x) ?? [])].sort());
  return JSON.stringify([r.firstSeason, seasons, rosters]);
}

/** A deep copy of group state: much cheaper than `structuredClone` for the many small objects of a team's. */
function copyState<T>(v: T): T {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(copyState) as T;
  if (v instanceof Map) return new Map([...v].map(([k, x]) => [k, copyState(x)])) as T;
  if (v instanceof Set) return new Set([...v].map(copyState)) as T;
  if (Object.getPrototypeOf(v) !== Object.prototype) return structuredClone(v);
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) out[k] = copyState((v as Record<string, unknown>)[k]);
  return out as T;
}

function cloneTeam(t: TeamSlot): TeamSlot {
  return { season: t.season, played: t.played, states: copyState(t.states) };
}

/** The early horizon's prediction time (ms); a fixture's is at least `asOfMs`, before its closing price. */
export function earlyPredictionTime(kickoffMs: number, asOfMs: number): number {
  return kickoffMs < asOfMs
    ? kickoffMs - OPENING_LEAD_MS
    : Math.max(kickoffMs - OPENING_LEAD_MS, Math.min(asOfMs, kickoffMs - 1));
}

/**
 * One feature row per match, from what existed at its prediction time only: a result counts from kick-off +
 * RESULT_LAG_MS, own odds from their observation time; matches of one kick-off see the state before any of
 * them. A result is used only for a finished match kicked off before `asOf`. Rows in kick-off order, then id.
 */
export function buildFeatureRows(
  matches: readonly Match[],
  odds: Pick<ReadonlyMap<number, OddsRecord>, 'get' | 'values'>,
  asOf: Date,
  options: FeatureOptions = {},
  resume?: FeatureResume,
): FeatureRow[] {
  const settings: FeatureSettings = resolveFeatureOptions(options);
  const priorOf = settings.promotedPriorOf;
  const asOfMs = asOf.getTime();
  const timeline =
    options.observations ??
    OddsTimeline.fromRecords(odds.values(), new Map(matches.map((m) => [m.id, m.startTimeUtc])));
  const horizon = settings.horizon;
  const atMs = typeof horizon === 'object' ? horizon.at.getTime() : 0;
  const predictionTime = (kickoff: number): number =>
    horizon === 'kickoff'
      ? kickoff
      : horizon === 'early'
        ? earlyPredictionTime(kickoff, asOfMs)
        : Math.min(atMs, kickoff);

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

  const regions = new Map<number, RegionSlot>();
  for (const m of sorted) {
    let r = regions.get(m.regionId);
    if (!r) {
      r = {
        firstSeason: m.season,
        teamsBySeason: new Map(),
        seasonsSorted: [],
        teams: new Set(),
        states: GROUPS.map((g) => g.newRegion?.(settings)),
      };
      regions.set(m.regionId, r);
    }
    if (m.season < r.firstSeason) r.firstSeason = m.season;
    const set = r.teamsBySeason.get(m.season) ?? new Set<string>();
    r.teamsBySeason.set(m.season, set.add(m.homeTeamName).add(m.awayTeamName));
  }
  for (const r of regions.values()) r.seasonsSorted = [...r.teamsBySeason.keys()].sort();

  const teams = new Map<string, TeamSlot>();
  const keyOf = (regionId: number, name: string): string => `${regionId}\u0000${name}`;

  /** The league-low prior: mean of the `priorOf` lowest values among the region's rated teams. */
  const lowPrior = (region: RegionSlot, regionId: number, k: number, pick: (t: unknown) => number) => {
    const rated = [...region.teams]
      .map((name) => teams.get(keyOf(regionId, name)))
      .filter((t) => t !== undefined);
    if (rated.length < priorOf) return null;
    const lowest = rated.map((t) => pick(t.states[k])).sort((a, b) => a - b);
    return lowest.slice(0, priorOf).reduce((s, x) => s + x, 0) / priorOf;
  };

  /** Team state at a season's first fixture; promoted/new teams start at the league-low prior. */
  const teamFor = (m: Match, name: string): { slot: TeamSlot; isNew: boolean } => {
    const region = regions.get(m.regionId)!;
    const key = keyOf(m.regionId, name);
    let t = teams.get(key);
    let isNew = false;
    if (!t || t.season !== m.season) {
      const idx = region.seasonsSorted.indexOf(m.season);
      const prev = idx > 0 ? region.teamsBySeason.get(region.seasonsSorted[idx - 1]) : undefined;
      isNew = m.season !== region.firstSeason && !prev?.has(name);
      if (!t) {
        t = { season: m.season, played: 0, states: GROUPS.map((g) => g.newTeam(settings)) };
        teams.set(key, t);
      }
      const slot = t;
      GROUPS.forEach((g, k) => {
        if (isNew)
          g.promote?.(slot.states[k], (pick) => lowPrior(region, m.regionId, k, pick), slot.played === 0);
        g.newSeason?.(slot.states[k]);
      });
      t.season = m.season;
      region.teams.add(name);
    }
    return { slot: t, isNew };
  };

  const settingsKey = resume ? settingsKeyOf(settings) : '';
  const observationsOf = (id: number) => ODDS_MARKETS.map((k) => timeline.of(id, k));
  // A checkpoint never lies after `asOf` or the horizon's instant (see checkpointHolds).
  let takeAt = resume?.takeAt ? Math.min(resume.takeAt.getTime(), asOfMs, atMs || asOfMs) : null;
  let start = 0;
  /** Results not folded in yet, in the order they become known; `head` is the next. */
  let pending: PendingResult[] = [];
  let head = 0;
  if (resume) {
    resume.taken = null;
    resume.resumed = false;
    const from = resume.from;
    if (from && !consumed.has(from) && checkpointHolds(from)) {
      start = from.matches.length;
      // The build takes a later checkpoint: this one's state is moved in, not copied (and is spent).
      const keep = takeAt === null || takeAt <= from.at;
      if (!keep) consumed.add(from);
      for (const [key, t] of from.teams) teams.set(key, keep ? cloneTeam(t) : (t as TeamSlot));
      for (const [id, r] of from.regions) {
        const slot = regions.get(id)!;
        slot.teams = new Set(r.teams);
        slot.states = keep ? copyState(r.states) : r.states;
      }
      pending = from.pending.map((p) => (keep ? copyPending(p) : p));
      resume.resumed = true;
    }
  }
  if (resume?.resumed && takeAt !== null && takeAt <= resume.from!.at) {
    // The build started after `takeAt`: the checkpoint it started from is still the latest one.
    resume.taken = resume.from!;
    takeAt = null;
  }

  const rows: FeatureRow[] = new Array(sorted.length);
  let i = start;
  while (i < sorted.length) {
    const t0 = sorted[i].startTimeUtc.getTime();
    if (resume && takeAt !== null && resume.taken === null && t0 >= takeAt)
      resume.taken = checkpoint(takeAt, i);
    let j = i;
    while (j < sorted.length && sorted[j].startTimeUtc.getTime() === t0) j++;
    // Results known by this kick-off's prediction time, in the order they became known.
    const at = predictionTime(t0);
    while (head < pending.length && pending[head].knownAt <= at) foldResult(pending[head++].ctx);
    if (head > 1024 && head * 2 > pending.length) {
      pending = pending.slice(head);
      head = 0;
    }
    const group: Array<{ m: Match; h: TeamSlot; a: TeamSlot; ctx: Ctx }> = [];
    for (let g = i; g < j; g++) {
      const m = sorted[g];
      const h = teamFor(m, m.homeTeamName);
      const a = teamFor(m, m.awayTeamName);
      const ctx = featureRow(m, h.slot, a.slot, h.isNew, a.isNew);
      rows[g] = ctx.row as unknown as FeatureRow;
      group.push({ m, h: h.slot, a: a.slot, ctx });
    }
    for (const { m, h, a, ctx } of group) {
      if (!onSchedule(m)) continue;
      eachGroup(ctx, h, a, regions.get(m.regionId)!, (g) => g.scheduled?.(ctx));
      if (!played(m)) continue;
      ctx.result = { home: m.homeScore as number, away: m.awayScore as number };
      pending.push({ knownAt: t0 + RESULT_LAG_MS, ctx });
    }
    i = j;
  }
  if (resume && takeAt !== null && resume.taken === null) resume.taken = checkpoint(takeAt, sorted.length);
  return start === 0 ? rows : rows.slice(start);

  function foldResult(ctx: Ctx): void {
    const m = ctx.match;
    const h = teams.get(keyOf(m.regionId, m.homeTeamName))!;
    const a = teams.get(keyOf(m.regionId, m.awayTeamName))!;
    eachGroup(ctx, h, a, regions.get(m.regionId)!, (g) => g.update?.(ctx as ResultContext<unknown, unknown>));
    h.played++;
    a.played++;
  }

  /** The state now (before match `end` of the build order), with the inputs of matches before it. */
  function checkpoint(at: number, end: number): FeatureCheckpoint {
    const prefix = sorted.slice(0, end);
    const schedule = new Map<number, { seasons: number; key: string }>();
    const lastSeason = new Map<number, string>();
    for (const m of prefix) {
      const s = lastSeason.get(m.regionId);
      if (s === undefined || m.season > s) lastSeason.set(m.regionId, m.season);
    }
    for (const [id, last] of lastSeason) {
      const r = regions.get(id)!;
      const n = r.seasonsSorted.filter((x) => x <= last).length;
      schedule.set(id, { seasons: n, key: scheduleKey(r, n) });
    }
    return {
      at,
      settingsKey,
      matches: prefix,
      records: prefix.map((m) => odds.get(m.id)),
      observations: prefix.map((m) => observationsOf(m.id)),
      schedule,
      teams: new Map([...teams].map(([key, t]) => [key, cloneTeam(t)])),
      regions: new Map(
        [...regions].map(([id, r]) => [id, { teams: [...r.teams], states: copyState(r.states) }]),
      ),
      pending: pending.slice(head).map(copyPending),
    };
  }

  /** Whether this build reaches the state of `c` at `c.at`: same settings, inputs, seasons and rosters. */
  function checkpointHolds(c: FeatureCheckpoint): boolean {
    if (c.settingsKey !== settingsKey || asOfMs < c.at || (atMs && atMs < c.at)) return false;
    const n = c.matches.length;
    if (n > sorted.length || (n < sorted.length && sorted[n].startTimeUtc.getTime() < c.at)) return false;
    if (n > 0 && sorted[n - 1].startTimeUtc.getTime() >= c.at) return false;
    for (let k = 0; k < n; k++) {
      const m = sorted[k];
      if (!sameMatch(c.matches[k], m) || !sameRecord(c.records[k], odds.get(m.id))) return false;
      const now = observationsOf(m.id);
      for (const [q, was] of c.observations[k].entries())
        if (
          was !== now[q] &&
          (was.length !== now[q].length || !was.every((x, i) => sameObservation(x, now[q][i])))
        )
          return false;
    }
    for (const [id, r] of regions) {
      const was = c.schedule.get(id);
      if (!was) {
        // A region with no match before the checkpoint: its state there is the initial one.
        if (c.regions.has(id) && c.regions.get(id)!.teams.length > 0) return false;
        continue;
      }
      if (was.key !== scheduleKey(r, was.seasons)) return false;
    }
    for (const id of c.regions.keys()) if (!regions.has(id)) return false;
    return true;
  }

  function featureRow(m: Match, h: TeamSlot, a: TeamSlot, hNew: boolean, aNew: boolean): Ctx {
    const t = m.startTimeUtc.getTime();
    const row = emptyFeatureRow();
    row.match_id = m.id;
    row.start_time_utc = m.startTimeUtc;
    row.region_id = m.regionId;
    row.season = m.season;
    row.home_team_name = m.homeTeamName;
    row.away_team_name = m.awayTeamName;
    row.label = played(m) ? outcomeFromScore(m.homeScore as number, m.awayScore as number) : null;

    row.is_future = t >= asOfMs;
    row.as_of = asOf;
    const ctx: Ctx = {
      match: m,
      t,
      home: undefined,
      away: undefined,
      region: undefined,
      homeNew: hNew,
      awayNew: aNew,
      prices: pricesOf(m.id, odds.get(m.id), timeline, predictionTime(t), settings),
      settings,
      row: row as Record<string, number | null>,
      result: null,
    };
    eachGroup(ctx, h, a, regions.get(m.regionId)!, (g) => g.values(ctx, ctx.row));
    const meta = row as Record<string, unknown>;
    meta.prediction_time = new Date(ctx.prices.predictionTime);
    meta.odds_observed_at = ctx.prices.marketObservedAt;
    return ctx;
  }
}

/** One match's context, reused from its values to its update (`result` set then). */
type Ctx = MatchContext<unknown, unknown> & {
  row: Record<string, number | null>;
  result: ResultContext<unknown, unknown>['result'] | null;
};

/** Calls `fn` for every group in list order, `ctx` pointing at that group's state. */
function eachGroup(
  ctx: Ctx,
  h: TeamSlot,
  a: TeamSlot,
  region: { states: unknown[] },
  fn: (g: FeatureGroup) => void,
): void {
  for (let k = 0; k < GROUPS.length; k++) {
    ctx.home = h.states[k];
    ctx.away = a.states[k];
    ctx.region = region.states[k];
    fn(GROUPS[k]);
  }
}

/** A pending result with its own context (the row is never written after it was built). */
function copyPending(p: PendingResult): PendingResult {
  return { knownAt: p.knownAt, ctx: { ...p.ctx, row: { ...p.ctx.row } } };
}

/** One match's de-margined odds, and its market view: the latest observations made at or before `at`. */
function pricesOf(
  matchId: number,
  o: OddsRecord | undefined,
  timeline: OddsTimeline,
  at: number,
  s: FeatureSettings,
): MatchPrices {
  const method = s.demargin;
  const x12 = timeline.latest(matchId, '1x2', at);
  const ou = timeline.latest(matchId, 'ou25', at);
  const bt = timeline.latest(matchId, 'btts', at);
  return {
    record: o,
    open: o ? demargin(o.open_home, o.open_draw, o.open_away, method) : null,
    close: o ? demargin(o.close_home, o.close_draw, o.close_away, method) : null,
    pre: o ? demargin(o.odd_home, o.odd_draw, o.odd_away, method) : null,
    predictionTime: at,
    market: x12 ? demargin(x12.prices[0], x12.prices[1], x12.prices[2], method) : null,
    marketOverround: x12 ? overround(x12.prices[0], x12.prices[1], x12.prices[2]) : null,
    marketObservedAt: x12 ? x12.observed_at : null,
    over25: ou ? (demarginPrices(ou.prices, method)?.[0] ?? null) : null,
    btts: bt ? (demarginPrices(bt.prices, method)?.[0] ?? null) : null,
  };
}
