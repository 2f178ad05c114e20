import type { Queryable } from '../db/index.js';
import { type Match, ODDS_MARKETS, type OddsRecord, OPENING_LEAD_MS } from '../domain/index.js';
import { FeatureColumns } from '../features/index.js';
import {
  type ObservationLookup,
  OddsColumns,
  oddsRecordAsOf,
  readObservationColumns,
} from '../ingest/index.js';
import type { Logger } from '../logger.js';
import { buildGoalInputs, type GoalRatingParams, parseMarketsRows } from '../model/index.js';
import { servedRef } from '../runs/index.js';
import { type ObjectStore, readParquet } from '../storage/index.js';
import { dateOf, type FeatureSnapshot } from './feature-table.js';

/** What the live goals markets need of ONE published run, built once per features snapshot and rating. */
type GoalsSnapshot = Awaited<ReturnType<typeof buildGoalsSnapshot>>;

const META = ['match_id', 'region_id', 'season', 'start_time_utc', 'home_team_name', 'away_team_name'];

/** A row's `prediction_time` (the 1X2 live path's rule), else kick-off − 48 h (rows built before it). */
export function predictionTimeOf(row: Record<string, unknown>): Date {
  const v = row.prediction_time;
  if (v instanceof Date && Number.isFinite(v.getTime())) return v;
  if (typeof v === 'string' && Number.isFinite(Date.parse(v))) return new Date(v);
  return new Date(dateOf(row.start_time_utc).getTime() - OPENING_LEAD_MS);
}

/** The odds record of `matchId` as it stood at `at`, by the goals stage's rule (`oddsRecordAsOf`). */
export function oddsRecordAt(
  snap: { odds: Pick<ReadonlyMap<number, OddsRecord>, 'get'>; observations: ObservationLookup },
  matchId: number,
  at: Date,
): OddsRecord | undefined {
  const own = ODDS_MARKETS.flatMap((market) => snap.observations.of(matchId, market));
  return oddsRecordAsOf(matchId, own, snap.odds.get(matchId), at);
}

/** A Match from a feature row's meta columns (from a columnar table only those columns are read). */
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
    startTimeUtc: dateOf(row.start_time_utc),
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
    const d = dateOf(row.as_of);
    if (Number.isFinite(d.getTime())) return d;
  }
  return new Date();
}

/** Every match's goal inputs, the run's odds records and observations, and its out-of-sample markets rows. */
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
  const inputs = new Map(
    buildGoalInputs(matches, odds, asOfOf(snap.rows), rating).map((g) => [g.match_id, g]),
  );
  const rows = marketsObj ? parseMarketsRows(await readParquet(marketsObj.body)) : [];
  const backtest = new Map(rows.filter((r) => r.model_stage === 'backtest').map((r) => [r.match_id, r]));
  return { runId: snap.runId, inputs, odds, observations: observed.byMatch(), backtest };
}

/** The {@link GoalsSnapshot}, rebuilt when the run or the rating changes; callers share one build. */
export class GoalsTable {
  private current: { snap: FeatureSnapshot; ratingKey: string; value: Promise<GoalsSnapshot> } | null = null;

  constructor(
    private readonly db: Queryable,
    private readonly store: ObjectStore,
    private readonly log: Logger,
  ) {}

  get(snap: FeatureSnapshot, rating: GoalRatingParams): Promise<GoalsSnapshot> {
    const ratingKey = `${rating.eta}:${rating.etaRegion}`;
    if (this.current?.snap === snap && this.current.ratingKey === ratingKey) return this.current.value;
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
