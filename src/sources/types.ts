import type { IngestDeps, IngestEncoding, IngestReport, ParsedFile } from '../ingest/index.js';

/** Per-source settings beyond the URL and the period (`sources add` options). */
export interface SourceOptions {
  encoding?: IngestEncoding;
  /** Region and tournament of a JSON feed's events whose `sport_key` is not a known league. */
  region?: string;
  tournament?: string;
  /** JSON feeds: take one bookmaker's prices (its `key`) instead of the average over bookmakers. */
  bookmaker?: string;
  /** An unknown team name becomes a new team instead of holding its rows back (the replay of the same data). */
  acceptNewTeams?: boolean;
}

export interface SourceParseContext {
  /** The source's name, labelling the rows in reports and logs. */
  file: string;
  /** The observation time of current prices without a time of their own. */
  fetchedAt: Date;
  options: SourceOptions;
}

/** How one kind of source's body is read; what follows (team names, ingest, re-prediction) is shared. */
export interface SourceKind {
  readonly name: string;
  readonly description: string;
  /** `csv`: header checks and the cut-row rule apply; `json`: the body must parse whole. */
  readonly body: 'csv' | 'json';
  /** The file only grows (a season's results): a shorter body is a fault, an extended one read from its end. */
  readonly grows: boolean;
  /** Throws a `MatchcastError` when the body is not of this kind. */
  parse(text: string, ctx: SourceParseContext): ParsedFile;
}

export interface SourceRecord {
  name: string;
  url: string;
  format: string;
  everyMs: number;
  options: SourceOptions;
  createdAt: Date;
  etag: string | null;
  lastModified: string | null;
  bodyBytes: number | null;
  bodySha256: string | null;
  header: string | null;
  fullReadNext: boolean;
  lastPolledAt: Date | null;
  lastSuccessAt: Date | null;
  lastErrorCode: string | null;
  lastErrorMessage: string | null;
  lastErrorAt: Date | null;
  errorsTotal: number;
  rowsAddedTotal: number;
  lastRowsAdded: number;
  nextPollAt: Date;
  unmatched: UnmatchedTeam[];
}

/** A team name of a source that matches no known team, with the closest known names of its region. */
export interface UnmatchedTeam {
  region: string;
  name: string;
  closest: string[];
  /** Rows held back because of it at the last poll. */
  rows: number;
}

export interface SourceDeps extends IngestDeps {
  /** Re-predicts the matches a poll changed once its data is stored; a failure is logged, the data stays. */
  afterIngest?: (changedMatchIds: number[], asOf: Date, report: IngestReport) => Promise<string | undefined>;
}
