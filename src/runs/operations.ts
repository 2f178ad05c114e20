import { BUCKETS, MatchcastError } from '../domain/index.js';
import type { Logger } from '../logger.js';
import { RUNS_PREFIX } from './keys.js';
import { listRuns, movePointer, readPublished, readRunRecord } from './records.js';
import { describeFailedGates, type RunBackends, RunWriter } from './run-writer.js';
import type { GateResult, RunEvent, RunRecord } from './types.js';
import { readVerified } from './verify.js';

/** The publish gates, run again on a rollback target's artifacts as stored now (the pipeline's). */
type RollbackGates = (record: RunRecord) => Promise<GateResult[]>;

/**
 * `matchcast runs rollback <id>`: points the served set back at an earlier complete run whose artifacts
 * are intact and that passes the publish gates now, with an event in the publications' history.
 */
export async function rollbackRun(
  backends: RunBackends,
  runId: string,
  options: { actor: string; reason?: string; gates?: RollbackGates },
): Promise<RunEvent> {
  const { db, store } = backends;
  const record = await readRunRecord(db, runId);
  if (!record) throw new MatchcastError('MC_ERR_NOT_FOUND', `run ${runId} does not exist`);
  if (record.status !== 'complete') {
    throw new MatchcastError(
      'MC_ERR_VALIDATION',
      `run ${runId} is ${record.status}: only a complete run (one that passed its gates) can be served`,
    );
  }
  if (!record.artifacts.predictions) {
    throw new MatchcastError(
      'MC_ERR_VALIDATION',
      `run ${runId} has no predictions: serving it would leave every replica without predictions`,
    );
  }
  for (const [name, ref] of Object.entries(record.artifacts)) {
    if (!ref) continue;
    if (!(await readVerified(store, ref))) {
      throw new MatchcastError(
        'MC_ERR_NOT_FOUND',
        `run ${runId} cannot be served: its artifact ${name} (${ref.bucket}/${ref.key}) is gone`,
      );
    }
  }
  const published = await readPublished(db);
  if (published?.run_id === runId) {
    throw new MatchcastError('MC_ERR_VALIDATION', `run ${runId} is already the published run`);
  }
  if (options.gates) {
    const failed = describeFailedGates(await options.gates(record));
    if (failed) {
      throw new MatchcastError(
        'MC_ERR_GATE_FAILED',
        `run ${runId} fails the publish gates now: ${failed} (the served run is unchanged)`,
      );
    }
  }
  return movePointer(db, record, {
    actor: options.actor,
    action: 'rollback',
    reason: options.reason ?? `rollback to ${runId}`,
    forced: false,
    expectSeq: published?.seq ?? null,
  });
}

async function deleteRunObjects(backends: RunBackends, runId: string): Promise<number> {
  let n = 0;
  for (const bucket of BUCKETS) {
    for (const o of await backends.store.list(bucket, `${RUNS_PREFIX}${runId}/`)) {
      await backends.store.delete(bucket, o.key);
      n++;
    }
  }
  // The record goes last: a half-pruned run still has a record saying what it was.
  await backends.db.query('DELETE FROM pipeline_runs WHERE run_id = $1', [runId]);
  return n;
}

/**
 * Retention: deletes the runs older than the newest `keep` — never the published run, a running or
 * draft run, nor a run whose artifacts a kept run references. Returns the ids removed.
 */
export async function pruneRuns(backends: RunBackends, keep: number, log?: Logger): Promise<string[]> {
  const runs = await listRuns(backends.db);
  const published = await readPublished(backends.db);
  const newestFirst = [...runs].reverse();
  const kept = new Set<string>(newestFirst.slice(0, Math.max(1, keep)).map((r) => r.run_id));
  if (published) kept.add(published.run_id);
  for (const r of runs) if (r.status === 'running' || r.status === 'draft') kept.add(r.run_id);
  // Artifacts referenced by a kept run (or the pointer) keep their writer's objects.
  const byId = new Map(runs.map((r) => [r.run_id, r]));
  const holders = [...[...kept].map((id) => byId.get(id)), published];
  const referenced = new Set(holders.flatMap((r) => Object.values(r?.artifacts ?? {}).map((a) => a?.run_id)));
  const removed: string[] = [];
  for (const r of runs) {
    if (kept.has(r.run_id) || referenced.has(r.run_id)) continue;
    const n = await deleteRunObjects(backends, r.run_id);
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
  backends: RunBackends,
  options: { runId?: string; asOf?: Date; log?: Logger } = {},
): Promise<RunWriter> {
  if (options.runId) return RunWriter.resume(backends, options.runId, { log: options.log });
  const published = await readPublished(backends.db);
  const drafts = (await listRuns(backends.db)).filter(
    (r) => r.status === 'draft' && r.parent_run_id === (published?.run_id ?? null),
  );
  const newest = drafts.at(-1);
  if (newest) return RunWriter.resume(backends, newest.run_id, { log: options.log });
  return RunWriter.begin(backends, { kind: 'stage', status: 'draft', asOf: options.asOf, log: options.log });
}
