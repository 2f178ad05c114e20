// The database: the Database port, its factories (PGlite or PostgreSQL, picked from the settings) and
// the matches repository. Drivers, migrations and error mapping stay inside; tests of a driver import its file.
export type { Database, Queryable } from './database.js';
export { DatasetIdentity, type DatasetKind } from './dataset-identity.js';
export { openDatabaseDeferred } from './deferred-database.js';
export { type EmbeddedHost, embeddedServerAnswers, hostEmbeddedDatabase } from './embedded-host.js';
export { isUnavailableError } from './errors.js';
export { MatchesRepository, type MatchUpsert } from './matches-repository.js';
export { embeddedDbDir, openDatabase } from './open-database.js';
export { PendingRepredictions } from './pending-repredictions.js';
