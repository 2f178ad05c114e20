import { BUCKETS, MatchcastError } from '../domain/index.js';
import type { Logger } from '../logger.js';
import type { ObjectStore } from '../storage/index.js';
import { RUNS_BUCKET, RUNS_PREFIX, runRecordKey } from './keys.js';
import { listRuns, movePointer, readPublished, readRunRecord, writeRunRecord } from './records.js';
import { RunWriter } from './run-writer.js';
import type { RunEvent, RunRecord } from './types.js';

/** Default of `RUNS_KEEP`: runs kept for rollback. */
export const DEFAULT_RUNS_KEEP = 10;

/**
 * `matchcast runs rollback <id>`: points the served set back at an earlier complete run, in one
 * compare-and-swap, with an event in the same append-only history as publications. Refuses a run
 * that is not complete or whose artifacts are gone (MC_ERR_VALIDATION / MC_ERR_NOT_FOUND).
 */
export async function rollbackRun(
  store: ObjectStore,
  runId: string,
  options: { actor: string; reason?: string; now?: Date },
): Promise<RunEvent> {
  const record = await readRunRecord(store, runId);
  if (!record) throw new MatchcastError('MC_ERR_NOT_FOUND', `run ${runId} does not exist`);
  if (record.status !== 'complete') {
    throw new MatchcastError(
      'MC_ERR_VALIDATION',
      `run ${runId} is ${record.status}: only a complete run (one that passed its gates) can be served`,
    );
  }
  for (const [name, ref] of Object.entries(record.artifacts)) {
    if (ref && !(await store.head(ref.bucket, ref.key))) {
      throw new MatchcastError(
        'MC_ERR_NOT_FOUND',
        `run ${runId} cannot be served: its artifact ${name} (${ref.bucket}/${ref.key}) is gone`,
      );
    }
  }
  const published = await readPublished(store);
  if (published?.run_id === runId) {
    throw new MatchcastError('MC_ERR_VALIDATION', `run ${runId} is already the published run`);
  }
  const event = await movePointer(store, record, {
    actor: options.actor,
    action: 'rollback',
    reason: options.reason ?? `rollback to ${runId}`,
    forced: false,
    expectEtag: published?.etag ?? null,
    now: options.now,
  });
  record.published_at.push(event.at);
  record.updated_at = event.at;
  await writeRunRecord(store, record);
  return event;
}

async function deleteRunObjects(store: ObjectStore, runId: string): Promise<number> {
  let n = 0;
  for (const bucket of BUCKETS) {
    for (const o of await store.list(bucket, `${RUNS_PREFIX}${runId}/`)) {
      if (bucket === RUNS_BUCKET && o.key === runRecordKey(runId)) continue;
      await store.delete(bucket, o.key);
      n++;
    }
  }
  // The record goes last: a half-pruned run still has a record saying what it was.
  await store.delete(RUNS_BUCKET, runRecordKey(runId));
  return n + 1;
}

/**
 * Retention: keeps the newest `keep` runs and deletes the objects of older ones — never the
 * published run, a run still running or a draft, nor a run whose artifacts a kept run references.
 * Returns the ids removed.
 */
export async function pruneRuns(store: ObjectStore, keep: number, log?: Logger): Promise<string[]> {
  const runs = await listRuns(store);
  const published = await readPublished(store);
  const newestFirst = [...runs].reverse();
  const kept = new Set<string>(newestFirst.slice(0, Math.max(1, keep)).map((r) => r.run_id));
  if (published) kept.add(published.run_id);
  for (const r of runs) if (r.status === 'running' || r.status === 'draft') kept.add(r.run_id);
  // Artifacts referenced by a kept run (or the pointer) keep their writer's objects.
  const referenced = new Set<string>();
  const byId = new Map(runs.map((r) => [r.run_id, r]));
  const refsOf = (r: Pick<RunRecord, 'artifacts'>) => Object.values(r.artifacts).map((a) => a?.run_id);
  for (const id of kept)
    for (const ref of refsOf(byId.get(id) ?? { artifacts: {} })) if (ref) referenced.add(ref);
  if (published) for (const ref of refsOf(published)) if (ref) referenced.add(ref);
  const removed: string[] = [];
  for (const r of runs) {
    if (kept.has(r.run_id) || referenced.has(r.run_id)) continue;
    const n = await deleteRunObjects(store, r.run_id);
    removed.push(r.run_id);
    log?.info({ run_id: r.run_id, objects: n }, 'run pruned (retention)');
  }
  return removed;
}

/**
 * The draft run stand-alone stages write into: `runId` when given (must be a draft), else the newest
 * draft whose parent is still the published run, else a new draft inheriting the published run.
 */
export async function openDraftRun(
  store: ObjectStore,
  options: { runId?: string; asOf?: Date; log?: Logger; actor?: string } = {},
): Promise<RunWriter> {
  if (options.runId) return RunWriter.resume(store, options.runId, { log: options.log });
  const published = await readPublished(store);
  const drafts = (await listRuns(store)).filter(
    (r) => r.status === 'draft' && r.parent_run_id === (published?.run_id ?? null),
  );
  const newest = drafts.at(-1);
  if (newest) return RunWriter.resume(store, newest.run_id, { log: options.log });
  return RunWriter.begin(store, {
    kind: 'stage',
    status: 'draft',
    asOf: options.asOf,
    log: options.log,
    actor: options.actor,
  });
}
