import type { Database, MatchUpsert } from '../db/index.js';
import type { Logger } from '../logger.js';
import type { ObjectStore } from '../storage/index.js';

/** What ingest needs: the relational DB and the object store (for `raw-data/odds.parquet`). */
export interface IngestDeps {
  db: Database;
  store: ObjectStore;
  /** Progress and skipped-row warnings. Default: silent. */
  log?: Logger;
}

/** A row that was not loaded, and why. `line` is 1-based in the file (the header is line 1). */
export interface SkippedRow {
  file: string;
  line: number;
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
  unchanged: number;
  skipped: SkippedRow[];
  /** Rows in `raw-data/odds.parquet` after this run (merged with what was there). */
  oddsRows: number;
  /** Wall-clock time of the run, ms. */
  ms: number;
}

/** Opening and closing 1X2 decimal odds of one match as a source gives them; unknown = null. */
export interface OddsInput {
  open_home: number | null;
  open_draw: number | null;
  open_away: number | null;
  close_home: number | null;
  close_draw: number | null;
  close_away: number | null;
  /** e.g. `football-csv`, `football-data.co.uk:Avg`, `synthetic`. */
  source: string;
}

/** One valid source row: the match and its odds (null when the row has none). */
export interface ParsedMatch {
  line: number;
  match: MatchUpsert;
  odds: OddsInput | null;
}

/** Outcome of parsing one data row: a match, or the reason it is malformed. */
export type RowResult =
  | { ok: true; match: MatchUpsert; odds: OddsInput | null }
  | { ok: false; reason: string };
