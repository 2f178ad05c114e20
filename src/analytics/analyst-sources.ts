import type { Database, Queryable } from '../db/index.js';
import { MatchesRepository } from '../db/index.js';
import { type Match, type OddsRecord, OddsTimeline } from '../domain/index.js';
import { FeatureColumns, type FeatureRow } from '../features/index.js';
import { readOddsFile, readOddsObservations } from '../ingest/index.js';
import { type ArtifactName, publishedSeq, readArtifact, readPublished } from '../runs/index.js';
import { type ObjectStore, type ParquetRow, readParquet } from '../storage/index.js';

/** What analyst views read: ONE published run's artifacts (all describe one run), the results and odds. */
export interface AnalystSources {
  /** The published run the artifacts come from; null for a store that never published one. */
  runId: string | null;
  matches: ReadonlyMap<number, Match>;
  /** Feature rows at the early (served) horizon, by match id. */
  features: ReadonlyMap<number, FeatureRow>;
  odds: ReadonlyMap<number, OddsRecord>;
  /** Every odds observation with its time: the prices that existed at a given instant. */
  timeline: OddsTimeline;
  predictions: ParquetRow[];
  backtest: ParquetRow[];
  fallbackBacktest: ParquetRow[];
  markets: ParquetRow[];
}

async function rowsOf(
  src: { db: Database; store: ObjectStore },
  name: ArtifactName,
  published: Awaited<ReturnType<typeof readPublished>>,
): Promise<ParquetRow[]> {
  const obj = await readArtifact(src, name, published);
  return obj ? readParquet(obj.body) : [];
}

export async function loadAnalystSources(store: ObjectStore, db: Database): Promise<AnalystSources> {
  const src = { db, store };
  const published = await readPublished(db);
  const [featuresObj, predictions, backtest, fallbackBacktest, markets, odds, observed, matches] =
    await Promise.all([
      readArtifact(src, 'features', published),
      rowsOf(src, 'predictions', published),
      rowsOf(src, 'backtest', published),
      rowsOf(src, 'fallbackBacktest', published),
      rowsOf(src, 'markets', published),
      readOddsFile(store),
      readOddsObservations(src),
      new MatchesRepository(db).allMatches(),
    ]);
  // Held as columns (~8 bytes a value); a row is built when a match is looked up.
  const features = featuresObj
    ? ((await FeatureColumns.fromParquet(featuresObj.body)) as unknown as ReadonlyMap<number, FeatureRow>)
    : new Map<number, FeatureRow>();
  const oddsById = new Map(odds.map((o) => [o.match_id, o]));
  const matchById = new Map(matches.map((m) => [m.id, m]));
  // Matches whose odds have no observation (an odds file from before observations) are stamped as
  // ingest stamps them, so that "the price at the prediction time" is defined for every match.
  const covered = new Set(observed.map((o) => o.match_id));
  const legacy = odds.filter((o) => !covered.has(o.match_id));
  const kickoffs = new Map(matches.map((m) => [m.id, m.startTimeUtc]));
  const extra = [];
  if (legacy.length > 0) {
    const t = OddsTimeline.fromRecords(legacy, kickoffs);
    for (const id of t.matchIds()) extra.push(...t.of(id, '1x2'));
  }
  return {
    runId: published?.run_id ?? null,
    matches: matchById,
    features,
    odds: oddsById,
    timeline: OddsTimeline.from([...observed, ...extra]),
    predictions,
    backtest,
    fallbackBacktest,
    markets,
  };
}

/** A value of the published run, recomputed when its sequence moves; with `idleMs`, dropped when unused. */
export class PublishedCache<T> {
  private current: { etag: number | null; value: Promise<T> } | null = null;
  private idle: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Queryable,
    private readonly compute: () => Promise<T>,
    private readonly idleMs?: number,
  ) {}

  async get(): Promise<T> {
    this.touch();
    const etag = await publishedSeq(this.db);
    if (this.current && this.current.etag === etag) return this.current.value;
    const value = this.compute();
    this.current = { etag, value };
    value.then(
      // Idle from when it is ready, not from when it was asked for.
      () => this.touch(),
      () => {
        if (this.current?.value === value) this.current = null;
      },
    );
    return value;
  }

  private touch(): void {
    if (this.idleMs === undefined) return;
    clearTimeout(this.idle);
    this.idle = setTimeout(() => {
      this.current = null;
    }, this.idleMs).unref();
  }
}
