import { hash } from 'node:crypto';
import { hostname, userInfo } from 'node:os';
import type { Database, Queryable } from '../db/index.js';
import { type Bucket, isMatchcastError, MatchcastError, processAlive } from '../domain/index.js';
import type { Logger } from '../logger.js';
import type { ObjectInfo, ObjectStore, PutOptions, StoredObject } from '../storage/index.js';
import { type ArtifactName, artifactNameOf, newPipelineRunId, runArtifactRef, runFileKey } from './keys.js';
import { listRuns, movePointer, readPublished, readRunRecord, writeRunRecord } from './records.js';
import type { ArtifactRef, GateResult, PublishedRun, RunEvent, RunRecord, RunStatus } from './types.js';
import { readVerified } from './verify.js';

export interface RunBackends {
  db: Database;
  store: ObjectStore;
}

interface BeginRunOptions {
  /** `full` (pipeline run, default), `stage` (a draft of stand-alone stages), `incremental`, … */
  kind?: string;
  /** Who started the run, written to the record and the history. Default `<user>@<host>`. */
  actor?: string;
  asOf?: Date | null;
  /** `running` (default) or `draft` (stand-alone stages: never published without `runs publish`). */
  status?: 'running' | 'draft';
  /** Run whose artifacts this one inherits by reference. Default the published run; `null`: none. */
  parent?: string | null;
  log?: Logger;
}

interface PublishOptions {
  /** The gates' results; a failed one stops the publication unless `force`. */
  gates: GateResult[];
  /** Publish even though a gate failed; recorded in the run and the history. Default false. */
  force?: boolean;
  actor?: string;
  reason?: string;
  /** Refuse when the pointer moved since the run began (never over a newer run). Default: not `full`. */
  requireParentCurrent?: boolean;
}

function defaultActor(): string {
  try {
    return `${userInfo().username}@${hostname()}`;
  } catch {
    return `pipeline@${hostname()}`;
  }
}

export function describeFailedGates(gates: readonly GateResult[]): string {
  return gates
    .filter((g) => !g.passed)
    .map((g) => `${g.name}: ${g.message}`)
    .join('; ');
}

/** The pointer's seq while `parentId` is still the published run, else -1 (matches no seq). */
const parentSeqOf = (published: PublishedRun | null, parentId: string | null) =>
  (published?.run_id ?? null) === parentId ? (published?.seq ?? null) : -1;

/**
 * Writes one run under `runs/<run_id>/` (nothing served changes); {@link publish} moves the pointer in
 * ONE transaction. Artifacts it does not write are inherited from its parent by reference.
 */
export class RunWriter {
  /** The stages' store: a `KEYS` key is this run's copy (own or inherited), any other the real store. */
  readonly store: ObjectStore;
  /** The real object store (ingest inputs, reports outside `KEYS`). */
  readonly base: ObjectStore;
  readonly db: Database;

  private constructor(
    backends: RunBackends,
    private rec: RunRecord,
    private readonly parentSeq: number | null,
    private readonly log: Logger | undefined,
  ) {
    this.base = backends.store;
    this.db = backends.db;
    this.store = scopedStore(this);
  }

  get runId(): string {
    return this.rec.run_id;
  }

  get record(): RunRecord {
    return structuredClone(this.rec);
  }

  /** Starts a run: marks abandoned runs of this host failed, inherits the parent's artifacts, writes the record. */
  static async begin(backends: RunBackends, options: BeginRunOptions = {}): Promise<RunWriter> {
    const published = await readPublished(backends.db);
    let parent: Pick<RunRecord, 'run_id' | 'artifacts' | 'features_fingerprint'> | null = null;
    if (options.parent === undefined) parent = published;
    else if (options.parent !== null) {
      parent = await readRunRecord(backends.db, options.parent);
      if (!parent) throw new MatchcastError('MC_ERR_NOT_FOUND', `run ${options.parent} does not exist`);
    }
    await markAbandonedRuns(backends.db, options.log);
    const now = new Date();
    const at = now.toISOString();
    const record: RunRecord = {
      run_id: newPipelineRunId(now),
      kind: options.kind ?? 'full',
      status: options.status ?? 'running',
      parent_run_id: parent?.run_id ?? null,
      actor: options.actor ?? defaultActor(),
      host: hostname(),
      pid: process.pid,
      created_at: at,
      updated_at: at,
      finished_at: null,
      as_of: options.asOf ? options.asOf.toISOString() : null,
      stages: {},
      artifacts: structuredClone(parent?.artifacts ?? {}),
      files: [],
      features_fingerprint: parent?.features_fingerprint ?? null,
      gates: [],
      forced: false,
      error: null,
      published_at: [],
    };
    // The pointer may move only from the parent: a run built on another than the published run never
    // publishes over it without `requireParentCurrent: false`.
    const writer = new RunWriter(backends, record, parentSeqOf(published, record.parent_run_id), options.log);
    await writer.save();
    options.log?.info(
      { run_id: record.run_id, kind: record.kind, parent: record.parent_run_id },
      'run started (nothing served changes until it is published)',
    );
    return writer;
  }

  /** Continues a draft run (stand-alone stages). MC_ERR_NOT_FOUND / MC_ERR_VALIDATION when it cannot be. */
  static async resume(
    backends: RunBackends,
    runId: string,
    // `forPublish`: also a rejected run (to publish it with --force).
    options: { log?: Logger; forPublish?: boolean } = {},
  ): Promise<RunWriter> {
    const record = await readRunRecord(backends.db, runId);
    if (!record) throw new MatchcastError('MC_ERR_NOT_FOUND', `run ${runId} does not exist`);
    if (record.status !== 'draft' && !(options.forPublish && record.status === 'rejected')) {
      throw new MatchcastError(
        'MC_ERR_VALIDATION',
        `run ${runId} is ${record.status}: only a draft run can be continued (runs are immutable)`,
      );
    }
    const published = await readPublished(backends.db);
    return new RunWriter(backends, record, parentSeqOf(published, record.parent_run_id), options.log);
  }

  /** A read-only handle on a finished run (for its gates or its files); nothing it does is saved. */
  static view(backends: RunBackends, record: RunRecord): RunWriter {
    return new RunWriter(backends, structuredClone(record), null, undefined);
  }

  ref(name: ArtifactName): ArtifactRef | undefined {
    return this.rec.artifacts[name];
  }

  /** True when this run wrote `name` itself (not inherited). */
  wrote(name: ArtifactName): boolean {
    return this.rec.artifacts[name]?.run_id === this.rec.run_id;
  }

  /** Writes `name` under this run's key (a draft rerun replaces its unserved file), with size and SHA-256. */
  async put(name: ArtifactName, body: Buffer | string, options: PutOptions = {}): Promise<ArtifactRef> {
    const { bucket, key } = runArtifactRef(this.rec.run_id, name);
    const buf = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    const info: ObjectInfo = await this.base.put(bucket, key, buf, { contentType: options.contentType });
    const ref: ArtifactRef = {
      bucket,
      key,
      etag: info.etag,
      size: info.size,
      sha256: hash('sha256', buf),
      run_id: this.rec.run_id,
    };
    this.rec.artifacts[name] = ref;
    return ref;
  }

  /** Removes `name` from the run (an inherited artifact that this run has no counterpart of). */
  drop(name: ArtifactName): void {
    delete this.rec.artifacts[name];
  }

  /** Writes an extra file of the run (a report outside `KEYS`); returns its key. */
  async putFile(
    bucket: Bucket,
    file: string,
    body: Buffer | string,
    options: PutOptions = {},
  ): Promise<string> {
    const key = runFileKey(this.rec.run_id, file);
    await this.base.put(bucket, key, body, { contentType: options.contentType });
    const where = `${bucket}/${key}`;
    if (!this.rec.files.includes(where)) this.rec.files.push(where);
    return key;
  }

  async get(name: ArtifactName): Promise<StoredObject | null> {
    const ref = this.rec.artifacts[name];
    return ref ? readVerified(this.base, ref) : null;
  }

  setFeaturesFingerprint(fingerprint: string): void {
    this.rec.features_fingerprint = fingerprint;
  }

  async recordStage(
    name: string,
    seconds: number | null,
    figures: Record<string, unknown> = {},
  ): Promise<void> {
    this.rec.stages[name] = { seconds, figures };
    await this.save();
  }

  async save(): Promise<void> {
    this.rec.updated_at = new Date().toISOString();
    await writeRunRecord(this.db, this.rec);
  }

  private settle(status: RunStatus, error: RunRecord['error'], gates?: GateResult[]): void {
    if (gates) this.rec.gates = gates;
    this.rec.status = status;
    this.rec.finished_at = new Date().toISOString();
    this.rec.error = error;
  }

  /** Marks the run failed (nothing was published). Never throws: the original error matters more. */
  async fail(err: unknown): Promise<void> {
    this.settle('failed', {
      code: isMatchcastError(err) ? err.code : 'MC_ERR_INTERNAL',
      message: err instanceof Error ? err.message : String(err),
    });
    try {
      await this.save();
      await markRunVersionsFailed(this.db, this.rec.run_id);
    } catch (saveErr) {
      this.log?.error(
        { run_id: this.rec.run_id, err: saveErr instanceof Error ? saveErr.message : String(saveErr) },
        'could not mark the run failed',
      );
    }
  }

  /**
   * Ends the run at failed gates (MC_ERR_GATE_FAILED): before `stage` it is `failed`, so not even
   * `runs publish --force` publishes it; at the publish gates (`stage` null) it is `rejected`.
   */
  async refuse(gates: GateResult[], stage: string | null): Promise<never> {
    const message = describeFailedGates(gates);
    this.settle(stage ? 'failed' : 'rejected', { code: 'MC_ERR_GATE_FAILED', message }, gates);
    await this.save();
    throw new MatchcastError(
      'MC_ERR_GATE_FAILED',
      stage
        ? `run ${this.rec.run_id} stopped before ${stage}, gate(s) failed: ${message} (nothing published; the served run is unchanged)`
        : `run ${this.rec.run_id} not published, gate(s) failed: ${message} (publish anyway with --force)`,
    );
  }

  /** Keeps the run unpublished as a draft (stand-alone stages), recording what it has. */
  async saveDraft(): Promise<void> {
    this.rec.status = 'draft';
    await this.save();
  }

  /** Publishes when the gates passed (or `force`); else the run is `rejected` (MC_ERR_GATE_FAILED). */
  async publish(options: PublishOptions): Promise<RunEvent> {
    const failed = options.gates.filter((g) => !g.passed);
    if (failed.length > 0 && !options.force) return this.refuse(options.gates, null);
    this.settle('complete', null, options.gates);
    this.rec.forced = failed.length > 0;
    await this.save();
    const requireParent = options.requireParentCurrent ?? this.rec.kind !== 'full';
    const reason =
      options.reason ??
      (this.rec.forced
        ? `forced past failed gate(s): ${failed.map((g) => g.name).join(', ')}`
        : 'gates passed');
    const event = await movePointer(this.db, this.rec, {
      actor: options.actor ?? this.rec.actor,
      action: 'publish',
      reason,
      forced: this.rec.forced,
      expectSeq: requireParent ? this.parentSeq : undefined,
    });
    this.log?.info(
      { run_id: this.rec.run_id, seq: event.seq, from: event.from_run, forced: event.forced },
      'run published',
    );
    return event;
  }
}

/** Idle time after which another host's `running` record is abandoned: no stage takes hours. */
export const ABANDONED_AFTER_MS = 6 * 3600_000;

/**
 * Marks `running` records whose process is gone `failed`: on this host when the pid is dead, elsewhere
 * after {@link ABANDONED_AFTER_MS} without progress. Their files stay, unreferenced, until retention.
 */
export async function markAbandonedRuns(db: Database, log?: Logger): Promise<string[]> {
  const now = new Date();
  const marked: string[] = [];
  for (const r of await listRuns(db)) {
    if (r.status !== 'running' || (r.host === hostname() && r.pid === process.pid)) continue;
    const idleMs = now.getTime() - new Date(r.updated_at).getTime();
    if (r.host === hostname() ? processAlive(r.pid) : !(idleMs > ABANDONED_AFTER_MS)) continue;
    r.status = 'failed';
    r.error = {
      code: 'MC_ERR_INTERNAL',
      message:
        r.host === hostname()
          ? `abandoned: process ${r.pid} on ${r.host} is gone`
          : `abandoned: no progress from ${r.host} (pid ${r.pid}) for ${Math.round(idleMs / 60_000)} min`,
    };
    r.finished_at = r.updated_at;
    await writeRunRecord(db, r);
    await markRunVersionsFailed(db, r.run_id);
    marked.push(r.run_id);
    log?.warn({ run_id: r.run_id, pid: r.pid }, 'run marked failed: its process is gone');
  }
  return marked;
}

/** Hides the versions a failed run registered from `registry list` and aliases; an aliased one stays. */
async function markRunVersionsFailed(db: Queryable, runId: string): Promise<void> {
  await db.query(
    `UPDATE model_versions SET status = 'failed'
       WHERE pipeline_run_id = $1 AND status = 'ready'
         AND NOT EXISTS (SELECT 1 FROM model_aliases a WHERE a.model_name = model_versions.model_name
                         AND a.version = model_versions.version)`,
    [runId],
  );
}

const runStores = new WeakSet<ObjectStore>();

/** True when `store` is a run's view (`run.store`): `KEYS` keys read that run's copies. */
export function isRunStore(store: ObjectStore): boolean {
  return runStores.has(store);
}

function scopedStore(run: RunWriter): ObjectStore {
  const base = run.base;
  const view: ObjectStore = {
    kind: base.kind,
    async put(bucket, key, body, options) {
      const name = artifactNameOf(bucket, key);
      if (!name) return base.put(bucket, key, body, options);
      const ref = await run.put(name, body, { contentType: options?.contentType });
      return { key: ref.key, size: ref.size, etag: ref.etag, lastModified: new Date() };
    },
    async get(bucket, key) {
      const name = artifactNameOf(bucket, key);
      return name ? run.get(name) : base.get(bucket, key);
    },
    async head(bucket, key) {
      const name = artifactNameOf(bucket, key);
      if (!name) return base.head(bucket, key);
      const ref = run.ref(name);
      return ref ? base.head(ref.bucket, ref.key) : null;
    },
    list: (bucket, prefix) => base.list(bucket, prefix),
    delete: (bucket, key) => base.delete(bucket, key),
    presign: (bucket, key, ttl) => base.presign(bucket, key, ttl),
    ensureBuckets: base.ensureBuckets ? () => base.ensureBuckets!() : undefined,
    async close() {},
  };
  runStores.add(view);
  return view;
}
