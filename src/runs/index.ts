// Runs: the run writer, run records, published-run pointers and artifact reads. Key layout helpers
// other than the artifact name/file key stay inside.
export { type ArtifactName, artifactNameOf, runFileKey } from './keys.js';
export { openDraftRun, pruneRuns, rollbackRun } from './operations.js';
export { readArtifact, readCurrentArtifact, servedRef, servedStoreView } from './reader.js';
export {
  listRuns,
  publishedEtag,
  publishedRunAt,
  readPublished,
  readRunHistory,
  readRunRecord,
} from './records.js';
export { markAbandonedRuns, RunWriter } from './run-writer.js';
export type { GateResult, PublishedRun, RunEvent, RunRecord } from './types.js';
