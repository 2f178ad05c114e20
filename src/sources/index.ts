// Data that arrives by itself: configured sources (results and fixtures files, odds CSVs, JSON odds
// feeds) polled on a schedule and applied through ingest; team-name aliases across sources.
export { formatEvery, parseEvery } from './duration.js';
export { isRemote } from './fetch-body.js';
export { guessKind, SOURCE_KINDS, sourceKind } from './kinds/index.js';
export { type PollOutcome, pollSource, setSourceGauges } from './poll.js';
export { startSourceSchedule } from './schedule.js';
export { SourcesRepository } from './sources-repository.js';
export { listTeamAliases, removeTeamAlias, setTeamAlias } from './team-resolver.js';
export type { SourceDeps, SourceOptions, SourceRecord } from './types.js';
