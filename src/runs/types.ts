import type { Bucket } from '../domain/index.js';
import type { ArtifactName } from './keys.js';

/** Where a run's artifact lives; a run may reference an earlier run's unchanged artifact. */
export interface ArtifactRef {
  bucket: Bucket;
  key: string;
  /** The store's change tag when written (informative only). */
  etag: string;
  size: number;
  sha256: string;
  /** The run that wrote the object (this run, or an earlier one it inherited it from). */
  run_id: string;
}

export interface GateResult {
  name: string;
  passed: boolean;
  message: string;
  figures: Record<string, number | string | boolean | null>;
}

/**
 * `running` (one whose process is gone is marked `failed` by the next run), `draft` (stand-alone stages,
 * published only by `runs publish`), `failed` (never published), `rejected` (a gate failed; `runs publish
 * --force` can publish it) or `complete` (passed its gates).
 */
export type RunStatus = 'running' | 'draft' | 'failed' | 'rejected' | 'complete';

/** A pipeline run: a row of `pipeline_runs`. */
export interface RunRecord {
  run_id: string;
  /** `full` (pipeline run), `stage` (stand-alone stages: a draft), `incremental` (re-prediction after new odds or results). */
  kind: string;
  status: RunStatus;
  /** The run that was published when this one began; artifacts not rewritten are inherited from it. */
  parent_run_id: string | null;
  actor: string;
  host: string;
  pid: number;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
  as_of: string | null;
  stages: Record<string, { seconds: number | null; figures: Record<string, unknown> }>;
  /** Every artifact of the run (own and inherited) by `KEYS` name. */
  artifacts: Partial<Record<ArtifactName, ArtifactRef>>;
  /** Extra files of the run (reports not in `KEYS`), `bucket/key`. */
  files: string[];
  /** Fingerprint of the feature definition that built `features` (null when unknown). */
  features_fingerprint: string | null;
  gates: GateResult[];
  forced: boolean;
  error: { code: string; message: string } | null;
  /** Every instant the pointer moved to this run (publish or rollback), ISO 8601 UTC. */
  published_at: string[];
}

/** One move of the published-run pointer, in the append-only history. */
export interface RunEvent {
  seq: number;
  /** ISO 8601 UTC: from this instant on, `to_run` is what the API and workers serve. */
  at: string;
  actor: string;
  action: 'publish' | 'rollback';
  from_run: string | null;
  to_run: string;
  reason?: string;
  forced: boolean;
}

/** The served run: the pointer row with the run's artifact map (one read for a reader). */
export type PublishedRun = Pick<RunRecord, 'run_id' | 'artifacts' | 'features_fingerprint'> & {
  /** Sequence number of the last move of the pointer: what pollers compare. */
  seq: number;
  published_at: string;
};
