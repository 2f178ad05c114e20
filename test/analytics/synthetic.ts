/**
 * Test fixture: a small synthetic league with a known home advantage that can change from a given
 * instant on (the injected shift), run through the real feature builder, registry, object store and
 * database, so the analytics stages read exactly what the pipeline writes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AnalyticsDeps } from '../../src/analytics/io.js';
import { parseConfig } from '../../src/config.js';
import { MatchesRepository, type MatchUpsert, openDatabase } from '../../src/db/index.js';
import { type Match, ODDS_1X2_FIELDS, type OddsRecord } from '../../src/domain/index.js';
import {
  buildFeatureRows,
  FEATURE_NAMES,
  featureRowsToParquet,
  MODEL_FEATURE_NAMES,
} from '../../src/features/index.js';
import type { PriceSet } from '../../src/ingest/index.js';
import { createLogger } from '../../src/logger.js';
import { createRegistry } from '../../src/registry/index.js';
import { createObjectStore, writeParquet } from '../../src/storage/index.js';
import { publishArtifacts } from '../helpers/served.js';

export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function poisson(r: () => number, lambda: number): number {
  const l = Math.exp(-lambda);
  let k = 0;
  let p = 1;
  do {
    k++;
    p *= r();
  } while (p > l);
  return k - 1;
}

function pmf(lambda: number, k: number): number {
  let f = 1;
  for (let i = 2; i <= k; i++) f *= i;
  return (Math.exp(-lambda) * lambda ** k) / f;
}

/** True 1X2 probabilities of independent Poisson scores. */
function outcomeProbs(lh: number, la: number): [number, number, number] {
  let h = 0;
  let d = 0;
  let a = 0;
  for (let i = 0; i <= 10; i++) {
    for (let j = 0; j <= 10; j++) {
      const p = pmf(lh, i) * pmf(la, j);
      if (i > j) h += p;
      else if (i === j) d += p;
      else a += p;
    }
  }
  const s = h + d + a;
  return [h / s, d / s, a / s];
}

export interface LeagueOptions {
  seed: number;
  /** Log-goal home advantage. */
  homeAdvantage: number;
  /** From this instant on, this home advantage applies (results and odds). */
  shift?: { from: Date; homeAdvantage: number };
  seasons: number;
  teams: number;
  regions: string[];
  firstSeasonStart: Date;
  /** Matches at or after this instant are scheduled (no score). */
  asOf: Date;
}

export interface League {
  matches: MatchUpsert[];
  odds: Map<string, Omit<OddsRecord, 'match_id'>>;
}

export function matchKey(
  m: Pick<Match, 'regionName' | 'tournamentName' | 'startTimeUtc' | 'homeTeamName' | 'awayTeamName'>,
): string {
  return [m.regionName, m.tournamentName, m.startTimeUtc.toISOString(), m.homeTeamName, m.awayTeamName].join(
    '|',
  );
}

/** Double round robin (circle method), one round a week, one season a year. */
export function generateLeague(o: LeagueOptions): League {
  const r = rng(o.seed);
  const matches: MatchUpsert[] = [];
  const odds = new Map<string, Omit<OddsRecord, 'match_id'>>();
  for (const region of o.regions) {
    const teams = Array.from({ length: o.teams }, (_, i) => `${region} Team ${String.fromCharCode(65 + i)}`);
    const strength = new Map(teams.map((t) => [t, (r() - 0.5) * 0.8]));
    const rounds: Array<Array<[string, string]>> = [];
    const rot = teams.slice(1);
    for (let k = 0; k < o.teams - 1; k++) {
      const circle = [teams[0], ...rot];
      const pairs: Array<[string, string]> = [];
      for (let i = 0; i < o.teams / 2; i++) {
        const a = circle[i];
        const b = circle[o.teams - 1 - i];
        pairs.push(k % 2 === 0 ? [a, b] : [b, a]);
      }
      rounds.push(pairs);
      rot.unshift(rot.pop()!);
    }
    const all = [...rounds, ...rounds.map((p) => p.map(([a, b]) => [b, a] as [string, string]))];
    for (let s = 0; s < o.seasons; s++) {
      const start = new Date(o.firstSeasonStart);
      start.setUTCFullYear(start.getUTCFullYear() + s);
      const season = `${start.getUTCFullYear()}-${start.getUTCFullYear() + 1}`;
      all.forEach((pairs, k) => {
        const when = new Date(start.getTime() + k * 7 * 86_400_000);
        for (const [home, away] of pairs) {
          const ha = o.shift && when >= o.shift.from ? o.shift.homeAdvantage : o.homeAdvantage;
          const diff = strength.get(home)! - strength.get(away)!;
          // Split symmetrically so that a change of home advantage leaves the goal total alone.
          const lh = Math.exp(0.25 + ha / 2 + diff / 2);
          const la = Math.exp(0.25 - ha / 2 - diff / 2);
          const future = when >= o.asOf;
          const hs = future ? null : poisson(r, lh);
          const as = future ? null : poisson(r, la);
          const m: MatchUpsert = {
            regionName: region,
            tournamentName: `${region} League`,
            season,
            startTimeUtc: when,
            homeTeamName: home,
            awayTeamName: away,
            status: future ? 'scheduled' : 'finished',
            homeScore: hs,
            awayScore: as,
          };
          matches.push(m);
          const p = outcomeProbs(lh, la);
          const price = (q: number, margin: number) => Math.round((1 / (q * margin)) * 100) / 100;
          const open = p.map((q) => price(q, 1.07));
          const close = p.map((q) => price(q, 1.05));
          odds.set(matchKey(m), {
            odd_home: close[0],
            odd_draw: close[1],
            odd_away: close[2],
            open_home: open[0],
            open_draw: open[1],
            open_away: open[2],
            close_home: close[0],
            close_draw: close[1],
            close_away: close[2],
            source: 'synthetic-test',
          });
        }
      });
    }
  }
  return { matches, odds };
}

export const ODDS_COLUMNS = [
  { name: 'match_id', type: 'int64' },
  ...ODDS_1X2_FIELDS.map((name) => ({ name, type: 'double' as const })),
  { name: 'source', type: 'string' },
] as const;

export interface Env {
  deps: AnalyticsDeps;
  dir: string;
  matches: Match[];
  close(): Promise<void>;
}

/**
 * Opens a temp folder store and an in-memory PGlite, loads the league, writes odds and feature files,
 * registers a champion trained before `trainingCutoff`, and writes backtest predictions (the
 * de-margined market probabilities stand in for a model: the analytics stages only read probabilities).
 */
export async function setupEnv(
  league: League,
  asOf: Date,
  trainingCutoff: Date,
  backtestFrom: Date,
): Promise<Env> {
  const dir = mkdtempSync(path.join(tmpdir(), 'mc-analytics-'));
  const config = parseConfig({
    DATA_DIR: dir,
    URL_SIGNING_SECRET: 'a'.repeat(64),
    LOG_LEVEL: 'silent',
    PUBLIC_BASE_URL: 'http://localhost:8000',
  });
  const log = createLogger('silent');
  const store = createObjectStore(config);
  const db = await openDatabase(config, { memory: true });
  const registry = createRegistry({ db, store }, config);
  const repo = new MatchesRepository(db);
  await repo.upsertMatches(league.matches);
  const matches = await repo.allMatches();
  const oddsMap = new Map<number, OddsRecord>();
  for (const m of matches) {
    const o = league.odds.get(matchKey(m));
    if (o) oddsMap.set(m.id, { match_id: m.id, ...o });
  }
  // The ingest input (raw-data/odds.parquet) and, below, the same files published as the served run.
  const oddsFile = writeParquet([...ODDS_COLUMNS], [...oddsMap.values()] as unknown as Record<
    string,
    unknown
  >[]);
  await store.put('raw-data', 'odds.parquet', oddsFile);
  const rows = buildFeatureRows(matches, oddsMap, asOf);
  const featuresFile = featureRowsToParquet(rows);
  const v = await registry.registerVersion({
    metrics: { log_loss: 1.0 },
    params: { kind: 'market-stand-in' },
    feature_names: [...MODEL_FEATURE_NAMES],
    training_cutoff: trainingCutoff,
    artifact: '{}',
  });
  await registry.setAlias('champion', v.version, 'test');

  const proba = (r: (typeof rows)[number]): [number, number, number] => {
    const p = [r.mkt_home, r.mkt_draw, r.mkt_away];
    return p.every((x) => typeof x === 'number') ? (p as [number, number, number]) : [0.45, 0.27, 0.28];
  };
  const byId = new Map(matches.map((m) => [m.id, m]));
  const preds = rows.map((r) => {
    const [ph, pd, pa] = proba(r);
    const m = byId.get(r.match_id)!;
    const cls = ph >= pd && ph >= pa ? 0 : pd >= pa ? 1 : 2;
    return {
      match_id: r.match_id,
      home_team_name: r.home_team_name,
      away_team_name: r.away_team_name,
      start_time_utc: r.start_time_utc,
      region_id: r.region_id,
      region_name: m.regionName,
      tournament_name: m.tournamentName,
      season: r.season,
      proba_home: ph,
      proba_draw: pd,
      proba_away: pa,
      predicted_class: cls,
      predicted_label: ['home_win', 'draw', 'away_win'][cls],
      is_future: r.is_future,
      model_stage: r.start_time_utc >= trainingCutoff ? 'champion' : 'backtest',
      model_run_id: v.run_id,
      predictions_computed_at: asOf,
      home_score: m.homeScore,
      away_score: m.awayScore,
    };
  });
  const S = 'string' as const;
  const predictionsFile = writeParquet(
    [
      { name: 'match_id', type: 'int64' },
      { name: 'home_team_name', type: S },
      { name: 'away_team_name', type: S },
      { name: 'start_time_utc', type: 'timestamp' },
      { name: 'region_id', type: 'int32' },
      { name: 'region_name', type: S },
      { name: 'tournament_name', type: S },
      { name: 'season', type: S },
      { name: 'proba_home', type: 'double' },
      { name: 'proba_draw', type: 'double' },
      { name: 'proba_away', type: 'double' },
      { name: 'predicted_class', type: 'int32' },
      { name: 'predicted_label', type: S },
      { name: 'is_future', type: 'boolean' },
      { name: 'model_stage', type: S },
      { name: 'model_run_id', type: S },
      { name: 'predictions_computed_at', type: 'timestamp' },
      { name: 'home_score', type: 'int32' },
      { name: 'away_score', type: 'int32' },
    ],
    preds,
  );
  const backtest = rows
    .filter((r) => r.start_time_utc >= backtestFrom && r.label !== null)
    .map((r) => {
      const [ph, pd, pa] = proba(r);
      return {
        match_id: r.match_id,
        proba_home: ph,
        proba_draw: pd,
        proba_away: pa,
        model_run_id: 'backtest-fold',
        training_cutoff: backtestFrom,
      };
    });
  const backtestFile = writeParquet(
    [
      { name: 'match_id', type: 'int64' },
      { name: 'proba_home', type: 'double' },
      { name: 'proba_draw', type: 'double' },
      { name: 'proba_away', type: 'double' },
      { name: 'model_run_id', type: S },
      { name: 'training_cutoff', type: 'timestamp' },
    ],
    backtest,
  );
  await publishArtifacts(
    { db, store },
    { odds: oddsFile, features: featuresFile, predictions: predictionsFile, backtest: backtestFile },
  );
  void FEATURE_NAMES;
  return {
    deps: { config, db, store, registry, log },
    dir,
    matches,
    async close() {
      await db.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The ingest engineer's generator output in this fixture's shape (odd_* = closing when known, else opening). */
export function fromSyntheticLeague(l: {
  matches: ReadonlyArray<{ match: MatchUpsert; prices: readonly PriceSet[]; source: string }>;
}): League {
  const odds = new Map<string, Omit<OddsRecord, 'match_id'>>();
  for (const { match, prices, source } of l.matches) {
    const [open, close] = (['opening', 'closing'] as const).map(
      (kind) => prices.find((p) => p.market === '1x2' && p.kind === kind)?.prices ?? [null, null, null],
    );
    odds.set(matchKey(match), {
      open_home: open[0],
      open_draw: open[1],
      open_away: open[2],
      close_home: close[0],
      close_draw: close[1],
      close_away: close[2],
      source,
      odd_home: close[0] ?? open[0],
      odd_draw: close[1] ?? open[1],
      odd_away: close[2] ?? open[2],
    });
  }
  return { matches: l.matches.map((m) => m.match), odds };
}
