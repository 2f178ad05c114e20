// CSV and synthetic data in: matches to the DB, odds and observations to the store. Only what other
// folders use is exported; parsers, decoders and name rules stay inside (their tests import the files).
export { csvLines, emptyParsedFile, type ParsedFile, parseCsvText } from './csv-file.js';
export { decodeText } from './decode.js';
export { ingestPath, listCsvFiles } from './ingest-path.js';
export { ingestSynthetic } from './ingest-synthetic.js';
export type { ObservationLookup } from './observation-columns.js';
export {
  type ObservationSet,
  type ObservationSource,
  readObservationColumns,
  readObservationSet,
  readOddsObservations,
} from './observations-file.js';
export { OddsColumns } from './odds-columns.js';
export { decodeOdds, type OddsSet, oddsRecordAsOf, readOddsFile, readOddsSet } from './odds-file.js';
export { foldName, looseName, TeamNames } from './team-names.js';
export {
  INGEST_ENCODINGS,
  type IngestDeps,
  type IngestEncoding,
  type IngestOptions,
  type IngestReport,
  type PriceSet,
} from './types.js';
