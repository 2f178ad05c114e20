export { type CsvFormat, detectFormat, type ParsedFile, parseCsvFile, parseCsvText } from './csv-file.js';
export { FOOTBALL_CSV_SOURCE } from './football-csv.js';
export { CLOSING_PREFIXES, OPENING_PREFIXES } from './football-data-co-uk.js';
export { ingestPath, listCsvFiles } from './ingest-path.js';
export { ingestSynthetic } from './ingest-synthetic.js';
export { DIVISIONS, seasonOf } from './names.js';
export { decodeOdds, mergeOddsFile, ODDS_COLUMNS, readOddsFile, toOddsRecord } from './odds-file.js';
export {
  generateSyntheticLeague,
  outcomeProbabilities,
  SYNTHETIC_SOURCE,
  type SyntheticLeague,
  type SyntheticMatch,
  type SyntheticOptions,
} from './synthetic.js';
export type { IngestDeps, IngestReport, OddsInput, ParsedMatch, SkippedRow } from './types.js';
