import type { Database, MatchUpsert } from '../db/index.js';
import type { ErrorCode, OddsKind, OddsMarket } from '../domain/index.js';
import type { Logger } from '../logger.js';
import type { ObjectStore } from '../storage/index.js';

export interface IngestDeps {
  db: Database;
  store: ObjectStore;
  log?: Logger;
}

/** Text encodings a source file may be declared in; `utf-8` (strict) unless told otherwise. */
export const INGEST_ENCODINGS = ['utf-8', 'latin1', 'windows-1252'] as const;
export type IngestEncoding = (typeof INGEST_ENCODINGS)[number];

export interface IngestOptions {
  /** Let a file change or erase the result of a finished match (each change is still listed). */
  force?: boolean;
  /** Default strict `utf-8`: a file with an invalid byte is refused. */
  encoding?: IngestEncoding;
  /** When a results file's undated prices are known (see `stampPrices`). Default: the wall clock. */
  now?: Date;
}

/** A row that was not loaded, and why. `line` is 1-based in the file (the header is line 1). */
export interface SkippedRow {
  file: string;
  line: number;
  /** `MC_ERR_INVALID_DATE`, `MC_ERR_OBSERVED_IN_FUTURE` or `MC_ERR_INVALID_ROW` (docs/errors.md). */
  code: ErrorCode;
  reason: string;
  /** 0-based offset of the undecodable byte that refused the whole file. */
  byte?: number;
}

/** One market's prices of a row that were not kept (the row's match itself loads). */
export interface OddsRejection {
  file: string;
  line: number;
  market: OddsMarket;
  /** As the row labelled it. */
  kind: string;
  reason: string;
}

/** A file disagreeing with the result of a finished match. Refused unless `force`; listed either way. */
export interface ResultConflict {
  file: string;
  line: number;
  match_id: number;
  /** e.g. `finished 2-1 (2021-2022)`. */
  old: string;
  new: string;
  /** True when `--force` applied the change. */
  applied: boolean;
}

/** Two team names of one region that look like one team spelled twice (reported, never merged). */
export interface NearDuplicateTeams {
  region: string;
  names: [string, string];
  reason: string;
}

export interface IngestReport {
  /** CSV files read (0 for synthetic data). */
  files: number;
  /** Data rows read (header lines excluded), including the skipped ones. */
  rowsRead: number;
  inserted: number;
  updated: number;
  /** Includes matches whose refused conflicting row left them as they were. */
  unchanged: number;
  skipped: SkippedRow[];
  conflicts: ResultConflict[];
  oddsRejected: OddsRejection[];
  nearDuplicateTeams: NearDuplicateTeams[];
  /** Odds observations read from the files (after rejections). */
  observationsRead: number;
  /** Observations this run added to the file or replaced there. */
  observationsAdded: number;
  /** Rows in `raw-data/odds_observations.parquet` after this run. */
  observations: number;
  /** Rows in `raw-data/odds.parquet` after this run. */
  oddsRows: number;
  ms: number;
  /** Matches whose served predictions a re-prediction must refresh (new data or observations), ascending. */
  changedMatchIds: number[];
}

/** One market's complete prices from a row. */
export interface PriceSet {
  market: OddsMarket;
  kind: OddsKind;
  prices: number[];
  /** Set by odds-only files; results files leave it to ingest's stamping rule. */
  observedAt?: Date;
}

/** A market of a row that was not kept, before the file name is known. */
export type RowRejection = Omit<OddsRejection, 'file' | 'line'>;

export interface ParsedMatch {
  line: number;
  match: MatchUpsert;
  prices: PriceSet[];
  /** Source label of the row's prices. */
  source: string;
}

/** One data row read, with the markets not kept (a malformed row throws `RowError`). */
export type RowRead = Omit<ParsedMatch, 'line'> & { rejected: RowRejection[] };
