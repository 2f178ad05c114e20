export * from './database.js';
export { isUnavailableError } from './errors.js';
export type { LivescoreRow, LivescoresQuery, MatchUpsert, UpsertResult } from './matches-repository.js';
export { MatchesRepository } from './matches-repository.js';
export type { Migration } from './migrations.js';
export { MIGRATIONS } from './migrations.js';
export type { OpenDatabaseOptions } from './open-database.js';
export { openDatabase } from './open-database.js';
