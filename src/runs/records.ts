import { isMatchcastError, MatchcastError } from '../domain/index.js';
import type { ObjectStore } from '../storage/index.js';
import {
  isPipelineRunId,
  PUBLISHED_KEY,
  RUNS_BUCKET,
  RUNS_PREFIX,
  runHistoryKey,
  runHistoryPrefix,
  runRecordKey,
} from './keys.js';
import type { PublishedPointer, PublishedRun, RunEvent, RunRecord } from './types.js';

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

async function readJson<T>(store: ObjectStore, key: string): Promise<{ value: T; etag: string } | null> {
  const obj = await store.get(RUNS_BUCKET, key);
  if (!obj) return null;
  try {
    return { value: JSON.parse(obj.body.toString('utf8')) as T, etag: obj.etag };
  } catch (err) {
    throw new MatchcastError('MC_ERR_INTERNAL', `run document ${RUNS_BUCKET}/${key} is not valid JSON`, {
      cause: err,
    });
  }
}

/** The published run (the pointer), or null when no run was ever published. */
export async function readPublished(store: ObjectStore): Promise<PublishedRun | null> {
  const found = await readJson<PublishedPointer>(store, PUBLISHED_KEY);
  return found ? { ...found.value, etag: found.etag } : null;
}

/** The pointer's etag (one HEAD), or null when no run was ever published: what pollers compare. */
export async function publishedEtag(store: ObjectStore): Promise<string | null> {
  return (await store.head(RUNS_BUCKET, PUBLISHED_KEY))?.etag ?? null;
}

export async function readRunRecord(store: ObjectStore, runId: string): Promise<RunRecord | null> {
  if (!isPipelineRunId(runId)) return null;
  return (await readJson<RunRecord>(store, runRecordKey(runId)))?.value ?? null;
}

/** Writes a run record (only its own writer does, or an operator command under the pointer's CAS). */
export async function writeRunRecord(store: ObjectStore, record: RunRecord): Promise<void> {
  await store.put(RUNS_BUCKET, runRecordKey(record.run_id), json(record), {
    contentType: 'application/json',
  });
}

/** Every run id with a record, oldest first (ids sort by creation time). */
export async function listRunIds(store: ObjectStore): Promise<string[]> {
  const objects = await store.list(RUNS_BUCKET, RUNS_PREFIX);
  const ids = new Set<string>();
  for (const o of objects) {
    const m = /^runs\/([^/]+)\/run\.json$/.exec(o.key);
    if (m && isPipelineRunId(m[1])) ids.add(m[1]);
  }
  return [...ids].sort();
}

/**
 * Every run record, oldest first: by `created_at` (milliseconds), then id. Ids alone sort by the second
 * and then by their random suffix, so two runs started within one second came out in either order
 * (the newest draft, retention and `runs list` then picked the wrong one).
 */
export async function listRuns(store: ObjectStore): Promise<RunRecord[]> {
  const ids = await listRunIds(store);
  const records = await Promise.all(ids.map((id) => readRunRecord(store, id)));
  return records
    .filter((r): r is RunRecord => r !== null)
    .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.run_id.localeCompare(b.run_id));
}

async function writeEvent(store: ObjectStore, event: RunEvent): Promise<void> {
  try {
    await store.put(RUNS_BUCKET, runHistoryKey(event.seq), json(event), {
      contentType: 'application/json',
      ifNoneMatch: '*',
    });
  } catch (err) {
    // Already written by a peer completing the history.
    if (!isMatchcastError(err, 'MC_ERR_CONFLICT')) throw err;
  }
}

/**
 * Every move of the pointer, oldest first. The run served at instant t is the `to_run` of the last
 * event with `at <= t` (what monitoring uses to know which predictions were live before a kick-off).
 */
export async function readRunHistory(store: ObjectStore): Promise<RunEvent[]> {
  const objects = await store.list(RUNS_BUCKET, runHistoryPrefix());
  const events = (await Promise.all(objects.map((o) => readJson<RunEvent>(store, o.key))))
    .filter((d) => d !== null)
    .map((d) => d.value);
  const published = await readPublished(store);
  if (published && !events.some((e) => e.seq === published.last_event.seq)) events.push(published.last_event);
  return events.sort((a, b) => a.seq - b.seq);
}

/** The run that was published at instant `at` (null when none was), from the history. */
export async function publishedRunAt(store: ObjectStore, at: Date): Promise<string | null> {
  let found: string | null = null;
  for (const e of await readRunHistory(store)) {
    if (new Date(e.at).getTime() <= at.getTime()) found = e.to_run;
  }
  return found;
}

/** Options of {@link movePointer}. */
export interface MovePointerOptions {
  actor: string;
  action: RunEvent['action'];
  reason?: string;
  forced: boolean;
  /** Publish only if the pointer still has this etag (null: only if no run was published). Default: any. */
  expectEtag?: string | null;
  now?: Date;
}

/**
 * THE commit point of a publication: one compare-and-swap of `runs/published.json` to `record`'s
 * artifacts, then the history event (completed by the next writer or reader if this one dies
 * between the two). Throws MC_ERR_CONFLICT when another publication won the race.
 */
export async function movePointer(
  store: ObjectStore,
  record: RunRecord,
  options: MovePointerOptions,
): Promise<RunEvent> {
  const current = await readPublished(store);
  if (options.expectEtag !== undefined && (current?.etag ?? null) !== options.expectEtag) {
    throw new MatchcastError(
      'MC_ERR_CONFLICT',
      `the published run changed while run ${record.run_id} was being prepared (now ${current?.run_id ?? 'none'}); rerun`,
    );
  }
  if (current) await writeEvent(store, current.last_event);
  const at = options.now ?? new Date();
  const event: RunEvent = {
    seq: (current?.seq ?? 0) + 1,
    at: at.toISOString(),
    actor: options.actor,
    action: options.action,
    from_run: current?.run_id ?? null,
    to_run: record.run_id,
    forced: options.forced,
  };
  if (options.reason) event.reason = options.reason;
  const pointer: PublishedPointer = {
    run_id: record.run_id,
    seq: event.seq,
    published_at: event.at,
    artifacts: record.artifacts,
    features_fingerprint: record.features_fingerprint,
    last_event: event,
  };
  await store.put(
    RUNS_BUCKET,
    PUBLISHED_KEY,
    json(pointer),
    current
      ? { contentType: 'application/json', ifMatch: current.etag }
      : { contentType: 'application/json', ifNoneMatch: '*' },
  );
  await writeEvent(store, event);
  return event;
}
