import type { Queryable } from '../db/index.js';
import { type Match, type OddsRecord, OPENING_LEAD_MS } from '../domain/index.js';
import { FeatureColumns } from '../features/index.js';
import {
  type ObservationLookup,
  OddsColumns,
  oddsRecordAsOf,
  readObservationColumns,
} from '../ingest/index.js';
import type { Logger } from '../logger.js';
import {
  buildGoalInputs,
  type GoalInput,
  type GoalRatingParams,
  type MarketsRow,
  parseMarketsRows,
} from '../model/index.js';
import { servedRef } from '../runs/index.js';
import { type ObjectStore, readParquet } from '../storage/index.js';
import type { FeatureSnapshot } from './feature-table.js';

/** What the live goals markets need of ONE published run, built once per features snapshot and rating. */
type GoalsSnapshot = Awaited<ReturnType<typeof buildGoalsSnapshot>>;

const META = ['match_id', 'region_id', 'season', 'start_time_utc', 'home_team_name', 'away_team_name'];

/** The kick-off of a feature row. */
function kickoffOf(row: Record<string, unknown>): Date {
  const v = row.start_time_utc;
  return v instanceof Date ? v : new Date(String(v));
}

/**
 * The instant a match is predicted at: the feature row's `prediction_time` (the 1X2 live path's rule,
 * kick-off − 48 h at the early horizon), else kick-off − 48 h for rows built before it existed.
 */
export function predictionTimeOf(row: Record<string, unknown>): Date {
  const v = row.prediction_time;
  if (v instanceof Date && Number.isFinite(v.getTime())) return v;
  if (typeof v === 'string' && Number.isFinite(Date.parse(v))) return new Date(v);
  return new Date(kickoffOf(row).getTime() - OPENING_LEAD_MS);
}

/**
 * The odds record of `matchId` as it stood at `at` (`oddsRecordAsOf`, the goals stage's rule): its
 * observations made at or before `at` only; the run's record for a match the observations do not cover.
 */
export function oddsRecordAt(
  snap: { odds: Pick<ReadonlyMap<number, OddsRecord>, 'get'>; observations: ObservationLookup },
  matchId: number,
  at: Date,
): OddsRecord | undefined {
  const own = (['1x2', 'ou25', 'btts'] as const).flatMap((market) => [
    ...snap.observations.of(matchId, market),
  ]);
  return oddsRecordAsOf(matchId, own, snap.odds.get(matchId), at);
}

/**
 * A Match from a feature row's meta columns (the goal ratings read ids, region, teams and kick-off);
 * from a columnar table only those columns are read, no whole row is built.
 */
function matchOf(rows: ReadonlyMap<number, Record<string, unknown>>, id: number): Match {
  const row =
    rows instanceof FeatureColumns
      ? Object.fromEntries(META.map((name) => [name, rows.value(id, name)]))
      : (rows.get(id) as Record<string, unknown>);
  return {
    id: Number(row.match_id),
    regionId: Number(row.region_id),
    regionName: '',
    tournamentName: '',
    season: String(row.season ?? ''),
    startTimeUtc: kickoffOf(row),
    homeTeamName: String(row.home_team_name),
    awayTeamName: String(row.away_team_name),
    // Results are not read: the ratings move on closing lines, and the worker does not train.
    status: 'scheduled',
    homeScore: null,
    awayScore: null,
  };
}

/** The `as_of` the features of the run were built at (the goals stage ran at the same one). */
function asOfOf(rows: ReadonlyMap<number, Record<string, unknown>>): Date {
  for (const row of rows.values()) {
    const v = row.as_of;
    const d = v instanceof Date ? v : new Date(String(v));
    if (Number.isFinite(d.getTime())) return d;
  }
  return new Date();
}

/**
 * Every match's goal inputs (as the goals stage builds them), the run's odds records (as columns), the
 * odds observations for point-in-time prices, and the out-of-sample rows of the run's markets file.
 */
async function buildGoalsSnapshot(
  db: Queryable,
  store: ObjectStore,
  snap: FeatureSnapshot,
  rating: GoalRatingParams,
) {
  const oddsRef = servedRef(snap.published, 'odds');
  const marketsRef = servedRef(snap.published, 'markets');
  const [oddsObj, marketsObj, observed] = await Promise.all([
    oddsRef ? store.get(oddsRef.bucket, oddsRef.key) : null,
    marketsRef ? store.get(marketsRef.bucket, marketsRef.key) : null,
    readObservationColumns({ db, store }),
  ]);
  const odds = oddsObj ? await OddsColumns.fromParquet(oddsObj.body) : new Map<number, OddsRecord>();
  const matches = [...snap.rows.keys()].map((id) => matchOf(snap.rows, id));
  const inputs = new Map<number, GoalInput>();
  for (const input of buildGoalInputs(matches, odds, asOfOf(snap.rows), rating)) {
    inputs.set(input.match_id, input);
  }
  const backtest = new Map<number, MarketsRow>();
  if (marketsObj) {
    for (const row of parseMarketsRows(await readParquet(marketsObj.body))) {
      if (row.model_stage === 'backtest') backtest.set(row.match_id, row);
    }
  }
  return {
    runId: snap.runId,
    inputs,
    odds,
    observations: observed.byMatch(),
    backtest,
  };
}

/**
 * The worker's {@link GoalsSnapshot}, rebuilt when the features snapshot (i.e. the published run) or the
 * rating parameters change; concurrent callers share one build.
 */
export class GoalsTable {
  private current: { snap: FeatureSnapshot; ratingKey: string; value: Promise<GoalsSnapshot> } | null = null;

  constructor(
    private readonly db: Queryable,
    private readonly store: ObjectStore,
    private readonly log: Logger,
  ) {}

  get(snap: FeatureSnapshot, rating: GoalRatingParams): Promise<GoalsSnapshot> {
    const ratingKey = `${rating.eta}:${rating.etaRegion}`;
    if (this.current && this.current.snap === snap && this.current.ratingKey === ratingKey) {
      return this.current.value;
    }
    const started = performance.now();
    const value = buildGoalsSnapshot(this.db, this.store, snap, rating).then((g) => {
      this.log.info(
        { run_id: g.runId, matches: g.inputs.size, ms: Math.round(performance.now() - started) },
        'goals inputs built',
      );
      return g;
    });
    this.current = { snap, ratingKey, value };
    // A failed build is not kept: the next call tries again.
    value.catch(() => {
      if (this.current?.value === value) this.current = null;
    });
    return value;
  }
}
