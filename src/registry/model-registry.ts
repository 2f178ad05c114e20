import { hash, randomBytes } from 'node:crypto';
import type { Config } from '../config.js';
import type { Database, Queryable } from '../db/index.js';
import { isStage, MatchcastError, modelArtifactKey, STAGES, type Stage } from '../domain/index.js';
import type { ObjectStore } from '../storage/index.js';
import { REGISTRY_BUCKET } from './keys.js';
import type { PromotionComparison } from './promotion.js';
import type { AliasEvent, ModelVersion, RegistryRun } from './types.js';

/** What the trainer hands over to register a new version (`run_id`: default a new random one). */
export type NewVersion = Pick<
  ModelVersion,
  'metrics' | 'feature_names' | 'feature_fingerprint' | 'features_artifact'
> & {
  run_id?: string;
  /** Values are stringified (spec §2.7: object of name to string). */
  params: Record<string, string | number | boolean>;
  training_cutoff: Date | string;
  /** The serialised model; written once to `models/<run_id>/model.json`. */
  artifact: Buffer | string;
  /** The pipeline run that registered it: a run that dies leaves its versions marked failed. */
  pipeline_run_id?: string;
};

type RegistryBackends = { db: Database; store: ObjectStore };

/** An alias change requested in one atomic write; `to: null` removes the alias. */
type AliasChange = { alias: Stage; to: string | null };

type OptionalField = 'feature_fingerprint' | 'features_artifact' | 'artifact_sha256' | 'artifact_size';
type VersionRow = Omit<ModelVersion, OptionalField | 'version' | 'status'> & {
  [K in OptionalField]-?: ModelVersion[K] | null;
} & { version: number; status: string };

const VERSION_COLUMNS = `model_name, version, run_id, created_at, metrics, params, feature_names, artifact_uri,
  artifact_sha256, artifact_size, training_cutoff, feature_fingerprint, features_artifact, status`;

function toVersion(row: VersionRow): ModelVersion {
  const v: ModelVersion = {
    model_name: row.model_name,
    version: String(row.version),
    run_id: row.run_id,
    created_at: row.created_at,
    metrics: row.metrics,
    params: row.params,
    feature_names: row.feature_names,
    artifact_uri: row.artifact_uri,
    training_cutoff: row.training_cutoff,
  };
  if (row.feature_fingerprint) v.feature_fingerprint = row.feature_fingerprint;
  if (row.features_artifact) v.features_artifact = row.features_artifact;
  if (row.artifact_sha256) v.artifact_sha256 = row.artifact_sha256;
  if (row.artifact_size !== null) v.artifact_size = Number(row.artifact_size);
  if (row.status !== 'ready') v.status = 'failed';
  return v;
}

const VERSION_NUMBER = /^[1-9]\d{0,8}$/;

/** A new run id: 32 lowercase hex characters, like MLflow's. */
export function newRunId(): string {
  return randomBytes(16).toString('hex');
}

const isRunId = (value: string): boolean => /^[0-9a-f]{32}$/.test(value);

export async function appendAliasEvent(db: Queryable, modelName: string, e: AliasEvent): Promise<void> {
  await db.query(
    `INSERT INTO model_alias_history (model_name, seq, at, actor, alias, from_version, to_version, reason)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [modelName, e.seq, e.at, e.actor, e.alias, e.from_version, e.to_version, e.reason ?? null],
  );
}

/**
 * The model registry, as MLflow splits it: versions, aliases, history and comparisons are database rows
 * (one transaction per change); model files are written once to the object store, checked on every read.
 */
export class ModelRegistry {
  readonly db: Database;
  readonly store: ObjectStore;

  constructor(
    backends: RegistryBackends,
    readonly modelName: string,
  ) {
    this.db = backends.db;
    this.store = backends.store;
  }

  /** Adds `n` to one of the model's counters (creating its row), locking the row for the transaction. */
  private async bump(tx: Queryable, counter: 'last_version' | 'last_alias_seq', n: number): Promise<number> {
    const rows = await tx.query<Record<string, number>>(
      `INSERT INTO registered_models (name, ${counter}) VALUES ($1, $2)
         ON CONFLICT (name) DO UPDATE SET ${counter} = registered_models.${counter} + $2 RETURNING ${counter}`,
      [this.modelName, n],
    );
    return Number(rows[0]![counter]);
  }

  /** Writes the artifact, then registers the next version number (the model's row locked meanwhile). */
  async registerVersion(input: NewVersion): Promise<ModelVersion> {
    const runId = input.run_id ?? newRunId();
    if (!isRunId(runId)) throw new MatchcastError('MC_ERR_VALIDATION', `run_id must be 32 hex characters`);
    const cutoff = new Date(input.training_cutoff);
    if (Number.isNaN(cutoff.getTime()))
      throw new MatchcastError('MC_ERR_VALIDATION', 'training_cutoff is not a date');
    const notNumber = Object.keys(input.metrics).find((k) => typeof input.metrics[k] !== 'number');
    if (notNumber) throw new MatchcastError('MC_ERR_VALIDATION', `metric ${notNumber} is not a number`);
    const body = Buffer.from(input.artifact);
    const artifactKey = modelArtifactKey(runId);
    // A registered run's file is never rewritten (its recorded SHA-256 would no longer match).
    const taken = await this.db.query('SELECT 1 FROM model_versions WHERE model_name = $1 AND run_id = $2', [
      this.modelName,
      runId,
    ]);
    if (taken.length > 0) throw new MatchcastError('MC_ERR_CONFLICT', `run ${runId} is already registered`);
    // The file goes first: a version row never points at a missing file. Its key is unique to the run.
    await this.store.put(REGISTRY_BUCKET, artifactKey, body, { contentType: 'application/json' });
    const params = Object.fromEntries(Object.entries(input.params).map(([k, v]) => [k, String(v)]));
    return this.db.transaction(async (tx) => {
      const next = await this.bump(tx, 'last_version', 1);
      const rows = await tx.query<VersionRow>(
        `INSERT INTO model_versions (model_name, version, run_id, created_at, metrics, params, feature_names,
           artifact_uri, artifact_sha256, artifact_size, training_cutoff, feature_fingerprint,
           features_artifact, pipeline_run_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
         RETURNING ${VERSION_COLUMNS}`,
        [
          this.modelName,
          next,
          runId,
          new Date().toISOString().replace(/Z$/, ''), // without a zone (spec §2.7)
          JSON.stringify(input.metrics),
          JSON.stringify(params),
          JSON.stringify(input.feature_names),
          `${REGISTRY_BUCKET}/${artifactKey}`,
          hash('sha256', body),
          body.length,
          cutoff.toISOString(),
          input.feature_fingerprint ?? null,
          input.features_artifact ? JSON.stringify(input.features_artifact) : null,
          input.pipeline_run_id ?? null,
        ],
      );
      return toVersion(rows[0]!);
    });
  }

  /** Versions of this model matching `where` (`$1` is the model name, `params` follow from `$2`). */
  private async selectVersions(where: string, params: unknown[] = []): Promise<ModelVersion[]> {
    const rows = await this.db.query<VersionRow>(
      `SELECT ${VERSION_COLUMNS} FROM model_versions WHERE model_name = $1 AND ${where}`,
      [this.modelName, ...params],
    );
    return rows.map(toVersion);
  }

  /** Every version, oldest first; versions of runs that died are left out unless `includeFailed`. */
  async listVersions(options: { includeFailed?: boolean } = {}): Promise<ModelVersion[]> {
    return this.selectVersions(`($2 OR status = 'ready') ORDER BY version`, [options.includeFailed === true]);
  }

  async getVersion(version: string): Promise<ModelVersion | null> {
    if (!VERSION_NUMBER.test(version)) return null;
    return (await this.selectVersions('version = $2', [Number(version)]))[0] ?? null;
  }

  async latestVersion(): Promise<ModelVersion | null> {
    return (await this.selectVersions(`status = 'ready' ORDER BY version DESC LIMIT 1`))[0] ?? null;
  }

  /** The newest ready version whose params carry this `run_key` (same data, params and code), or null. */
  async findByRunKey(runKey: string): Promise<ModelVersion | null> {
    const where = `status = 'ready' AND params->>'run_key' = $2 ORDER BY version DESC LIMIT 1`;
    return (await this.selectVersions(where, [runKey]))[0] ?? null;
  }

  /** Records a run that is not a version (a walk-forward fold), once. */
  async recordRun(run: RegistryRun): Promise<void> {
    if (!isRunId(run.run_id))
      throw new MatchcastError('MC_ERR_VALIDATION', 'run_id must be 32 hex characters');
    await this.db.query(
      `INSERT INTO model_runs (model_name, run_id, doc) VALUES ($1, $2, $3)
         ON CONFLICT (model_name, run_id) DO NOTHING`,
      [this.modelName, run.run_id, JSON.stringify(run)],
    );
  }

  async getRun(runId: string): Promise<RegistryRun | null> {
    return isRunId(runId) ? this.readDoc('model_runs', 'run_id', runId) : null;
  }

  private async readDoc<T>(table: string, column: string, value: unknown): Promise<T | null> {
    const sql = `SELECT doc FROM ${table} WHERE model_name = $1 AND ${column} = $2`;
    return (await this.db.query<{ doc: T }>(sql, [this.modelName, value]))[0]?.doc ?? null;
  }

  /** The serialised model of a version, refused when its size or SHA-256 differ from the registration's. */
  async loadArtifact(version: string | ModelVersion): Promise<Buffer> {
    const v = typeof version === 'string' ? await this.getVersion(version) : version;
    if (!v) throw new MatchcastError('MC_ERR_NOT_FOUND', `model version ${String(version)} does not exist`);
    const prefix = `${REGISTRY_BUCKET}/`;
    const key = v.artifact_uri.startsWith(prefix)
      ? v.artifact_uri.slice(prefix.length)
      : modelArtifactKey(v.run_id);
    const obj = await this.store.get(REGISTRY_BUCKET, key);
    if (!obj) {
      throw new MatchcastError(
        'MC_ERR_MODEL_UNAVAILABLE',
        `artifact of version ${v.version} is missing (${key})`,
      );
    }
    if (
      v.artifact_sha256 &&
      (obj.body.length !== v.artifact_size || hash('sha256', obj.body) !== v.artifact_sha256)
    ) {
      throw new MatchcastError(
        'MC_ERR_ARTIFACT_INTEGRITY',
        `artifact of ${this.modelName} version ${v.version} (${key}) does not match the size and SHA-256 recorded at registration`,
      );
    }
    return obj.body;
  }

  /** Records what the promotion guard looked at for a version (replacing an earlier decision). */
  async writeComparison(c: PromotionComparison): Promise<void> {
    await this.db.query(
      `INSERT INTO model_comparisons (model_name, version, doc) VALUES ($1, $2, $3)
         ON CONFLICT (model_name, version) DO UPDATE SET doc = EXCLUDED.doc`,
      [this.modelName, Number(c.version), JSON.stringify(c)],
    );
  }

  async readComparison(version: string): Promise<PromotionComparison | null> {
    return VERSION_NUMBER.test(version)
      ? this.readDoc('model_comparisons', 'version', Number(version))
      : null;
  }

  async aliases(): Promise<Partial<Record<Stage, string>>> {
    const rows = await this.db.query<{ alias: string; version: number }>(
      'SELECT alias, version FROM model_aliases WHERE model_name = $1',
      [this.modelName],
    );
    const byAlias = new Map(rows.map((r) => [r.alias, String(r.version)]));
    return Object.fromEntries(STAGES.filter((s) => byAlias.has(s)).map((s) => [s, byAlias.get(s)]));
  }

  async resolve(stage: Stage): Promise<ModelVersion | null> {
    const where = 'version = (SELECT version FROM model_aliases WHERE model_name = $1 AND alias = $2)';
    return (await this.selectVersions(where, [stage]))[0] ?? null;
  }

  /** Applies `plan` in one transaction guarded by the values read (MC_ERR_CONFLICT if one moved meanwhile). */
  private async moveAliases(
    actor: string,
    reason: string | undefined,
    plan: (current: Partial<Record<Stage, string>>) => AliasChange[],
  ): Promise<AliasEvent[]> {
    const current = await this.aliases();
    const changes = plan({ ...current }).filter((c) => (current[c.alias] ?? null) !== c.to);
    if (changes.length === 0) return [];
    return this.db.transaction(async (tx) => {
      let seq = (await this.bump(tx, 'last_alias_seq', changes.length)) - changes.length;
      const at = new Date().toISOString();
      const events: AliasEvent[] = [];
      for (const change of changes) {
        const from = current[change.alias] ?? null;
        const moved =
          from === null
            ? await tx.query(
                `INSERT INTO model_aliases (model_name, alias, version) VALUES ($1, $2, $3)
                   ON CONFLICT (model_name, alias) DO NOTHING RETURNING alias`,
                [this.modelName, change.alias, Number(change.to)],
              )
            : change.to === null
              ? await tx.query(
                  'DELETE FROM model_aliases WHERE model_name = $1 AND alias = $2 AND version = $3 RETURNING alias',
                  [this.modelName, change.alias, Number(from)],
                )
              : await tx.query(
                  `UPDATE model_aliases SET version = $4, updated_at = now()
                     WHERE model_name = $1 AND alias = $2 AND version = $3 RETURNING alias`,
                  [this.modelName, change.alias, Number(from), Number(change.to)],
                );
        if (moved.length !== 1) {
          throw new MatchcastError(
            'MC_ERR_CONFLICT',
            `alias ${change.alias} of ${this.modelName} was moved by another writer (expected ${from ?? 'unassigned'}); read it again and retry`,
          );
        }
        seq += 1;
        const event: AliasEvent = {
          seq,
          at,
          actor,
          alias: change.alias,
          from_version: from,
          to_version: change.to,
        };
        if (reason) event.reason = reason;
        await appendAliasEvent(tx, this.modelName, event);
        events.push(event);
      }
      return events;
    });
  }

  private assertStage(stage: string): asserts stage is Stage {
    if (!isStage(stage)) {
      throw new MatchcastError(
        'MC_ERR_VALIDATION',
        `unknown alias "${stage}" (expected ${STAGES.join(', ')})`,
      );
    }
  }

  /** Points `stage` at `version`; the event, or null when the alias already pointed there. */
  async setAlias(stage: Stage, version: string, actor: string, reason?: string): Promise<AliasEvent | null> {
    this.assertStage(stage);
    const v = await this.getVersion(version);
    if (!v) throw new MatchcastError('MC_ERR_NOT_FOUND', `model version ${version} does not exist`);
    if (v.status === 'failed') {
      throw new MatchcastError(
        'MC_ERR_VALIDATION',
        `model version ${version} was registered by a run that failed; it cannot take an alias`,
      );
    }
    return (await this.moveAliases(actor, reason, () => [{ alias: stage, to: v.version }]))[0] ?? null;
  }

  /** Removes `stage`; returns the event, or null when the alias was not assigned. */
  async deleteAlias(stage: Stage, actor: string, reason?: string): Promise<AliasEvent | null> {
    this.assertStage(stage);
    return (await this.moveAliases(actor, reason, () => [{ alias: stage, to: null }]))[0] ?? null;
  }

  /**
   * The operator's sign-off (spec §3.1): champion moves to the candidate, which loses its alias, in one
   * transaction; `setAlias('champion', from_version)` is the rollback. MC_ERR_NOT_FOUND: no candidate.
   */
  async promoteCandidate(actor: string, reason?: string): Promise<{ from: string | null; to: string }> {
    const result: { from: string | null; to: string } = { from: null, to: '' };
    await this.moveAliases(actor, reason ?? 'operator sign-off: candidate → champion', (current) => {
      const candidate = current.candidate;
      if (candidate === undefined)
        throw new MatchcastError('MC_ERR_NOT_FOUND', 'there is no candidate to promote');
      result.from = current.champion ?? null;
      result.to = candidate;
      return [
        { alias: 'champion', to: candidate },
        { alias: 'candidate', to: null },
      ];
    });
    return result;
  }

  async history(): Promise<AliasEvent[]> {
    const rows = await this.db.query<Omit<AliasEvent, 'reason'> & { reason: string | null }>(
      `SELECT seq, at, actor, alias, from_version, to_version, reason FROM model_alias_history
         WHERE model_name = $1 ORDER BY seq`,
      [this.modelName],
    );
    return rows.map(({ reason, ...e }) => ({
      ...e,
      seq: Number(e.seq),
      ...(reason !== null ? { reason } : {}),
    }));
  }
}

/** The registry as its readers see it (the live routes, the analytics). */
export type Registry = Pick<
  ModelRegistry,
  'modelName' | 'listVersions' | 'getVersion' | 'aliases' | 'resolve'
>;

/** The registry of `config.modelName` over the database (rows) and the object store (files). */
export function createRegistry(backends: RegistryBackends, config: Pick<Config, 'modelName'>): ModelRegistry {
  return new ModelRegistry(backends, config.modelName);
}
