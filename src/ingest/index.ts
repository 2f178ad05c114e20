export { type CsvFormat, detectFormat, type ParsedFile, parseCsvFile, parseCsvText } from './csv-file.js';
export { decodeText, firstInvalidUtf8 } from './decode.js';
export type { DecodedEntry } from './decoded-cache.js';
export { FOOTBALL_CSV_MARKETS, FOOTBALL_CSV_SOURCE } from './football-csv.js';
export { CLOSING_PREFIXES, OPENING_PREFIXES } from './football-data-co-uk.js';
export { ingestPath, listCsvFiles, stampPrices } from './ingest-path.js';
export { ingestSynthetic } from './ingest-synthetic.js';
export { DIVISIONS, seasonOf } from './names.js';
export {
  decodeObservations,
  type MergeObservationsResult,
  mergeOddsObservations,
  OBSERVATION_COLUMNS,
  type ObservationSet,
  readObservationSet,
  readOddsObservations,
} from './observations-file.js';
export {
  decodeOdds,
  mergeOddsFile,
  ODDS_COLUMNS,
  type OddsSet,
  oddsRecordAsOf,
  readOddsFile,
  readOddsSet,
  summariseOdds,
} from './odds-file.js';
export { ODDS_FILE_SOURCE, ODDS_ONLY_MARKETS } from './odds-only.js';
export {
  generateSyntheticLeague,
  outcomeProbabilities,
  SYNTHETIC_SOURCE,
  type SyntheticLeague,
  type SyntheticMatch,
  type SyntheticOptions,
} from './synthetic.js';
export { foldName, TeamNames } from './team-names.js';
export {
  INGEST_ENCODINGS,
  type IngestDeps,
  type IngestEncoding,
  type IngestOptions,
  type IngestReport,
  type NearDuplicateTeams,
  type OddsInput,
  type OddsRejection,
  type ParsedMatch,
  type PriceSet,
  type ResultConflict,
  type SkippedRow,
} from './types.js';
