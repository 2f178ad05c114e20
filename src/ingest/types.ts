import type { Database, MatchUpsert } from '../db/index.js';
import type { ErrorCode, OddsKind, OddsMarket } from '../domain/index.js';
import type { Logger } from '../logger.js';
import type { ObjectStore } from '../storage/index.js';

/** What ingest needs: the relational DB and the object store (for `raw-data/odds.parquet`). */
export interface IngestDeps {
  db: Database;
  store: ObjectStore;
  /** Progress and skipped-row warnings. Default: silent. */
  log?: Logger;
}

/** Text encodings a source file may be declared in; `utf-8` (strict) unless told otherwise. */
export const INGEST_ENCODINGS = ['utf-8', 'latin1', 'windows-1252'] as const;
export type IngestEncoding = (typeof INGEST_ENCODINGS)[number];

export interface IngestOptions {
  /** Let a file change or erase the result of a finished match (each change is still listed). Default `false`. */
  force?: boolean;
  /** How the files are decoded. Default `utf-8`, strictly: a file with an invalid byte is refused. */
  encoding?: IngestEncoding;
  /**
   * When a results file's prices are known: opening stamped min(kick-off − OPENING_LEAD_MS, now), a closing
   * price before kick-off becomes `intermediate` at `now`. Default: the wall clock.
   */
  now?: Date;
}

/** A row that was not loaded, and why. `line` is 1-based in the file (the header is line 1). */
export interface SkippedRow {
  file: string;
  line: number;
  /**
   * Why, as a stable code (docs/errors.md): `MC_ERR_INVALID_DATE` (a date or time naming no real
   * instant), `MC_ERR_OBSERVED_IN_FUTURE` (odds stamped after now), else `MC_ERR_INVALID_ROW`.
   */
  code: ErrorCode;
  reason: string;
  /** Byte offset (0-based, in the file) of an undecodable byte, when the whole file was refused for it. */
  byte?: number;
}

/** One market's prices of a row that were not kept (the row's match itself loads). */
export interface OddsRejection {
  file: string;
  line: number;
  market: OddsMarket;
  /** `opening`, `closing`, `intermediate` … as the row labelled them. */
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
  /** e.g. `scheduled (no score) (2021-2022)`. */
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

/** What one ingest run did. */
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
  /** Finished results a file disagreed with (refused unless forced). */
  conflicts: ResultConflict[];
  /** Prices rejected per line (implausible, incomplete, not a number, after kick-off, unknown match). */
  oddsRejected: OddsRejection[];
  /** Team names that differ only slightly from another name of their region. */
  nearDuplicateTeams: NearDuplicateTeams[];
  /** Odds observations read from the files (after rejections). */
  observationsRead: number;
  /** Observations this run added to the file or replaced there (the rest were already stored). */
  observationsAdded: number;
  /** Rows in `raw-data/odds_observations.parquet` after this run. */
  observations: number;
  /** Rows in `raw-data/odds.parquet` after this run (merged with what was there). */
  oddsRows: number;
  /** Wall-clock time of the run, ms. */
  ms: number;
  /**
   * Matches this ingest changed — inserted, result or status updated, or given a new (or replaced)
   * odds observation — ascending: the ones whose served predictions a re-prediction must refresh.
   */
  changedMatchIds: number[];
}

/**
 * One market's complete prices from a row. Results files give `opening`/`closing` without a time
 * (stamped by ingest, see {@link IngestOptions.now}); odds-only files give the time.
 */
export interface PriceSet {
  market: OddsMarket;
  kind: OddsKind;
  prices: number[];
  /** Set by odds-only files; results files leave it to ingest's stamping rule. */
  observedAt?: Date;
}

/** A market of a row that was not kept, before the file name is known. */
export type RowRejection = Omit<OddsRejection, 'file' | 'line'>;

/** One valid source row: the match, its prices and where they came from. */
export interface ParsedMatch {
  line: number;
  match: MatchUpsert;
  prices: PriceSet[];
  /** Source label of the row's prices. */
  source: string;
}

/** One data row read: the match, its prices and the markets not kept (a malformed row throws `RowError`). */
export type RowRead = Omit<ParsedMatch, 'line'> & { rejected: RowRejection[] };
