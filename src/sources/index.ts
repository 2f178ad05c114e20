// Data that arrives by itself: configured sources (results and fixtures files, odds CSVs, JSON odds
// feeds) polled on a schedule and applied through ingest; team-name aliases across sources.
export { formatEvery, parseEvery } from './duration.js';
export { type FetchBodyOptions, fetchBody, isRemote } from './fetch-body.js';
export { guessKind, SOURCE_KINDS, sourceKind } from './kinds/index.js';
export { type PollOptions, type PollOutcome, pollSource, setSourceGauges } from './poll.js';
export { type SourceScheduleOptions, startSourceSchedule } from './schedule.js';
export { SourcesRepository } from './sources-repository.js';
export {
  listTeamAliases,
  regionsOfTeam,
  removeTeamAlias,
  setTeamAlias,
  similarity,
  TeamResolver,
} from './team-resolver.js';
export type {
  SourceDeps,
  SourceKind,
  SourceOptions,
  SourceRecord,
  UnmatchedTeam,
} from './types.js';
