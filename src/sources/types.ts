import type { IngestDeps, IngestEncoding, IngestReport, ParsedFile } from '../ingest/index.js';

/** Per-source settings beyond the URL and the period (`sources add` options). */
export interface SourceOptions {
  /** Text encoding of the body. Default strict `utf-8`. */
  encoding?: IngestEncoding;
  /** Region and tournament of a JSON feed's events whose `sport_key` is not a known league. */
  region?: string;
  tournament?: string;
  /** JSON feeds: take one bookmaker's prices (its `key`) instead of the average over bookmakers. */
  bookmaker?: string;
  /**
   * A name that matches no known team becomes a new team instead of holding its rows back: for a
   * source whose names are consistent with the stored ones (the replay of the same data). Default `false`.
   */
  acceptNewTeams?: boolean;
}

/** What a kind of source is given to turn a fetched body into rows. */
export interface SourceParseContext {
  /** Label of the rows in reports and logs: the source's name. */
  file: string;
  /** When the body was fetched: the observation time of current prices without a time of their own. */
  fetchedAt: Date;
  options: SourceOptions;
}

/**
 * How one kind of source's body is read: CSV kinds through `parseCsvText`, a JSON kind builds the
 * `ParsedFile`; what follows (team names, ingest, re-prediction) is the same for every kind.
 */
export interface SourceKind {
  readonly name: string;
  /** One line for `sources add --help`. */
  readonly description: string;
  /** `csv`: header checks and the cut-row rule apply; `json`: the body must parse whole. */
  readonly body: 'csv' | 'json';
  /**
   * The file only grows (a season's results): a shorter body is a fault, and a body that extends the
   * last good one is read from where that one ended.
   */
  readonly grows: boolean;
  /** The body (already decoded) as rows; throws a `MatchcastError` when it is not of this kind. */
  parse(text: string, ctx: SourceParseContext): ParsedFile;
}

/** A configured source as stored. */
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

/** What a poll needs: ingest's database, store and log, and what to do once data is in. */
export interface SourceDeps extends IngestDeps {
  /**
   * Called with the matches a poll changed, once its data is stored (the caller re-predicts and
   * publishes them). Its failure is logged; the poll's data stays stored.
   */
  afterIngest?: (changedMatchIds: number[], asOf: Date, report: IngestReport) => Promise<string | undefined>;
}
