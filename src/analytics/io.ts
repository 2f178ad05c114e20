import type { Config } from '../config.js';
import { type Database, MatchesRepository } from '../db/index.js';
import { type Match, type Outcome, outcomeFromScore } from '../domain/index.js';
import type { FeatureRow } from '../features/index.js';
import type { Logger } from '../logger.js';
import type { Registry } from '../registry/index.js';
import { type ArtifactName, type ArtifactSource, readCurrentArtifact } from '../runs/index.js';
import { contentTypeForKey, type ObjectStore, type ParquetRow, readParquet } from '../storage/index.js';

/** What the analysis stages need; the pipeline passes its own deps. */
export interface AnalyticsDeps {
  config: Config;
  db: Database;
  store: ObjectStore;
  registry: Registry;
  log: Logger;
  /** What a pipeline run already holds, so its stages need no second copy. Default: loaded by each stage. */
  loaded?: { matches: readonly Match[]; featureRows: readonly FeatureRow[] };
}

export async function matchesOf(deps: Pick<AnalyticsDeps, 'db' | 'loaded'>): Promise<readonly Match[]> {
  return deps.loaded?.matches ?? (await new MatchesRepository(deps.db).allMatches());
}

export function outcomeOf(m: Match | undefined): Outcome | null {
  if (m?.status !== 'finished' || m.homeScore === null || m.awayScore === null) return null;
  return outcomeFromScore(m.homeScore, m.awayScore);
}

export function numOrNull(v: unknown): number | null {
  if (typeof v === 'bigint') return Number(v);
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/** A row's `<prefix>_home`, `_draw` and `_away` numbers; null unless all three are. */
export function threeWay(r: Readonly<Record<string, unknown>> | undefined, prefix: string): number[] | null {
  const p = [
    numOrNull(r?.[`${prefix}_home`]),
    numOrNull(r?.[`${prefix}_draw`]),
    numOrNull(r?.[`${prefix}_away`]),
  ];
  return p.every((x) => x !== null) ? (p as number[]) : null;
}

export function asDate(v: unknown): Date | null {
  const d = v instanceof Date ? v : typeof v === 'number' || typeof v === 'string' ? new Date(v) : null;
  return d && !Number.isNaN(d.getTime()) ? d : null;
}

/** A parquet artifact's rows from a run's view or the published run (never a stale top-level copy). */
export async function readParquetObject(
  src: ArtifactSource,
  name: ArtifactName,
): Promise<ParquetRow[] | null> {
  const obj = await readCurrentArtifact(src, name);
  return obj ? readParquet(obj.body) : null;
}

export function regionsOf(matches: Iterable<Match>): Map<number, string> {
  return new Map(Array.from(matches, (m) => [m.regionId, m.regionName]));
}

/** Items grouped by `key`, each group in input order. */
export function groupBy<T, K>(xs: readonly T[], key: (x: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const x of xs) {
    const k = key(x);
    const list = groups.get(k);
    if (list) list.push(x);
    else groups.set(k, [x]);
  }
  return groups;
}

export async function putReport(store: ObjectStore, key: string, body: string): Promise<void> {
  await store.put('reports', key, Buffer.from(body, 'utf8'), { contentType: contentTypeForKey(key) });
}
