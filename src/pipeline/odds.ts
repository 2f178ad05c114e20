import { type Match, type OddsObservation, type OddsRecord, OddsTimeline } from '../domain/index.js';
import {
  type ObservationSet,
  type ObservationSource,
  readOddsFile,
  readOddsObservations,
} from '../ingest/index.js';
import type { ObjectStore } from '../storage/index.js';

/**
 * `raw-data/odds.parquet` as a map by match id. An absent file is an empty map: matches without odds
 * get their market features flagged missing, never invented.
 */
export async function readOddsMap(store: ObjectStore): Promise<Map<number, OddsRecord>> {
  return new Map((await readOddsFile(store)).map((r) => [r.match_id, r]));
}

/**
 * Every odds observation with its time, as a point-in-time index: `raw-data/odds_observations.parquet`,
 * plus — for matches it does not cover (an odds file written before observations existed, or by a test)
 * — the 1X2 opening/closing of their `odds` record stamped the same way ingest stamps them.
 */
export async function readOddsTimeline(
  src: ObservationSource,
  odds: ReadonlyMap<number, OddsRecord>,
  matches: readonly Match[],
): Promise<OddsTimeline> {
  const observed = await readOddsObservations(src);
  const covered = new Set(observed.map((o) => o.match_id));
  const kickoffs = new Map(matches.map((m) => [m.id, m.startTimeUtc]));
  const legacy = [...odds.values()].filter((r) => !covered.has(r.match_id));
  if (legacy.length === 0) return OddsTimeline.from(observed);
  return OddsTimeline.from([...observed, ...legacyObservations(legacy, kickoffs)]);
}

/**
 * The same index as {@link readOddsTimeline}, restricted to `matches` (what their features can ask
 * for), from an already decoded observation set: an incremental re-prediction indexes the
 * observations of the regions it rebuilds, not all of them.
 */
export function timelineOfMatches(
  observed: ObservationSet | null,
  odds: Pick<ReadonlyMap<number, OddsRecord>, 'get' | 'values'>,
  matches: readonly Match[],
): OddsTimeline {
  const picked: OddsObservation[] = [];
  const legacy: OddsRecord[] = [];
  const kickoffs = new Map<number, Date>();
  for (const m of matches) {
    const list = observed?.byMatch.get(m.id);
    if (list && list.length > 0) for (const o of list) picked.push(o);
    else {
      const r = odds.get(m.id);
      if (r) {
        legacy.push(r);
        kickoffs.set(m.id, m.startTimeUtc);
      }
    }
  }
  return OddsTimeline.from(
    legacy.length === 0 ? picked : [...picked, ...legacyObservations(legacy, kickoffs)],
  );
}

/** Opening/closing 1X2 of odds records without observations, stamped as ingest stamps them. */
function legacyObservations(
  legacy: readonly OddsRecord[],
  kickoffs: ReadonlyMap<number, Date>,
): OddsObservation[] {
  const fromRecords = OddsTimeline.fromRecords(legacy, kickoffs);
  return [...fromRecords.matchIds()].flatMap((id) => fromRecords.of(id, '1x2'));
}
