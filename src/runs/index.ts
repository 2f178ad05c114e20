// Runs: the run writer, run records and the published-run pointer (rows of the database), and reads
// of run artifacts (files of the object store, verified against their recorded SHA-256).
export { type ArtifactName, runFileKey } from './keys.js';
export { openDraftRun, pruneRuns, rollbackRun } from './operations.js';
export { type ArtifactSource, readArtifact, readCurrentArtifact, servedRef } from './reader.js';
export {
  appendRunEvent,
  listRuns,
  publishedSeq,
  readPublished,
  readRunHistory,
  readRunRecord,
} from './records.js';
export { markAbandonedRuns, RunWriter } from './run-writer.js';
export type { ArtifactRef, GateResult, PublishedRun, RunEvent, RunRecord } from './types.js';
export { readVerified } from './verify.js';
