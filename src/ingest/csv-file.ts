import { readFile } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';
import type { MatchUpsert } from '../db/index.js';
import { FIELD_LIMITS } from '../domain/index.js';
import { decodeText } from './decode.js';
import { type Field, RowError } from './fields.js';
import { isFootballCsvHeader, readFootballCsvRow } from './football-csv.js';
import { isFootballDataHeader, readFootballDataRow } from './football-data-co-uk.js';
import { isOddsOnlyHeader, type MatchKey, type ParsedOddsRow, readOddsOnlyRow } from './odds-only.js';
import type { TeamNames } from './team-names.js';
import type { IngestEncoding, OddsRejection, ParsedMatch, SkippedRow } from './types.js';

/** The CSV layouts ingest understands, detected from the header in this order; results layouts read a row. */
const LAYOUTS = [
  { format: 'odds-only', is: isOddsOnlyHeader },
  { format: 'football-csv', is: isFootballCsvHeader, read: readFootballCsvRow },
  { format: 'football-data.co.uk', is: isFootballDataHeader, read: readFootballDataRow },
] as const;

type CsvFormat = (typeof LAYOUTS)[number]['format'];

export interface ParsedFile {
  file: string;
  format: CsvFormat | null;
  /** Data rows read, including the malformed ones. */
  rowsRead: number;
  matches: ParsedMatch[];
  oddsRows: ParsedOddsRow[];
  skipped: SkippedRow[];
  /** Prices rejected per line (the row's match still loads). */
  oddsRejected: OddsRejection[];
}

export function emptyParsedFile(file: string, format: CsvFormat | null = null): ParsedFile {
  return { file, format, rowsRead: 0, matches: [], oddsRows: [], skipped: [], oddsRejected: [] };
}

/** Two rows of one match have one key (team names case aside). */
function matchKey(m: MatchKey): string {
  return [
    m.regionName,
    m.tournamentName,
    m.startTimeUtc.getTime(),
    m.homeTeamName.toLowerCase(),
    m.awayTeamName.toLowerCase(),
  ].join('\u0000');
}

interface ParseOptions {
  encoding?: IngestEncoding;
  /** Canonical team names (case/spacing variants map to the known spelling). Default: names kept as cleaned. */
  names?: TeamNames;
  /** A score for a kick-off after it, or odds observed after it, are refused. Default: the wall clock. */
  now?: Date;
}

/** Parses one CSV file: malformed rows go to `skipped`; a file that does not decode is refused whole. */
export async function parseCsvFile(file: string, options: ParseOptions = {}): Promise<ParsedFile> {
  const decoded = decodeText(await readFile(file), options.encoding);
  if (decoded.ok) return parseCsvText(decoded.text, file, options);
  const { line, byte, reason } = decoded;
  const refused: SkippedRow = {
    file,
    code: 'MC_ERR_INVALID_ROW',
    line,
    byte,
    reason: `file refused: ${reason}`,
  };
  return { ...emptyParsedFile(file), skipped: [refused] };
}

/** One line at a time (neither layout has multi-line fields): a broken quote costs its own line only. */
function parseLine(line: string): string[] {
  // Fast path: without quotes a record is a plain split (csv-parse per line costs ~50 µs).
  if (!line.includes('"')) return line.split(',');
  const rows = parse(line, { relax_column_count: true, relax_quotes: true }) as string[][];
  if (rows.length !== 1) throw new Error(`expected one record, got ${rows.length}`);
  return rows[0];
}

type Result = Pick<MatchUpsert, 'status' | 'homeScore' | 'awayScore' | 'season'>;

export function sameResult(a: Result, b: Result): boolean {
  return (
    a.status === b.status &&
    a.homeScore === b.homeScore &&
    a.awayScore === b.awayScore &&
    a.season === b.season
  );
}

/** A CSV body's lines (byte-order mark dropped) and its header's index: the first non-blank line, -1 if none. */
export function csvLines(text: string): { lines: string[]; headerAt: number } {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  return { lines, headerAt: lines.findIndex((l) => l.trim() !== '') };
}

export function parseCsvText(text: string, file: string, options: ParseOptions = {}): ParsedFile {
  const out = emptyParsedFile(file);
  const { oddsRejected } = out;
  const skip = (line: number, reason: string, code: SkippedRow['code'] = 'MC_ERR_INVALID_ROW') => {
    out.skipped.push({ file, code, line, reason });
    return out;
  };
  const { lines, headerAt } = csvLines(text);
  if (headerAt < 0) return skip(1, 'empty file: no header');
  let header: string[];
  try {
    if (lines[headerAt].length > FIELD_LIMITS.line)
      throw new Error(`longer than ${FIELD_LIMITS.line} characters`);
    header = parseLine(lines[headerAt]).map((h) => h.trim());
  } catch (err) {
    return skip(headerAt + 1, `unparseable header: ${(err as Error).message}`);
  }
  const layout = LAYOUTS.find((l) => l.is(header));
  if (!layout)
    return skip(
      headerAt + 1,
      'unrecognised header: expected the football CSV, the football-data.co.uk or the odds-only layout',
    );
  out.format = layout.format;
  const index = new Map<string, number>();
  header.forEach((h, i) => {
    if (h !== '' && !index.has(h)) index.set(h, i);
  });
  const seen = new Map<string, ParsedMatch>();
  const seenOdds = new Map<string, number>();
  const now = options.now ?? new Date();

  // Every check of a line throws a RowError: the line is skipped with its code and reason.
  const readLine = (text: string, line: number): void => {
    if (text.length > FIELD_LIMITS.line)
      throw new RowError(`line is longer than ${FIELD_LIMITS.line} characters (${text.length})`);
    let record: string[];
    try {
      record = parseLine(text);
    } catch (err) {
      throw new RowError(`unparseable CSV: ${(err as Error).message.replace(/ at line \d+/, '')}`);
    }
    if (record.length < header.length || record.slice(header.length).some((v) => v.trim() !== ''))
      throw new RowError(`expected ${header.length} fields, got ${record.length}`);
    const long = record.findIndex((v) => v.length > FIELD_LIMITS.field);
    if (long >= 0)
      throw new RowError(
        `field ${header[long] || long + 1} is longer than ${FIELD_LIMITS.field} characters (${record[long].length})`,
      );
    const get: Field = (name) => {
      const at = index.get(name);
      return at === undefined ? undefined : record[at].trim();
    };
    if (!('read' in layout)) {
      const { row, rejected } = readOddsOnlyRow(get);
      if (row.observedAt.getTime() > now.getTime())
        throw new RowError(
          `observed_at ${row.observedAt.toISOString()} is after now (${now.toISOString()}): prices cannot be observed before they exist`,
          'MC_ERR_OBSERVED_IN_FUTURE',
        );
      for (const r of rejected) oddsRejected.push({ file, line, ...r });
      const refKey = 'matchId' in row.ref ? `#${row.ref.matchId}` : matchKey(row.ref);
      const dupKey = `${refKey}\u0000${row.observedAt.getTime()}\u0000${row.source}`;
      const dupOf = seenOdds.get(dupKey);
      if (dupOf !== undefined)
        throw new RowError(`duplicate of line ${dupOf} (same match, observed_at and source)`);
      seenOdds.set(dupKey, line);
      out.oddsRows.push({ line, ...row });
      return;
    }
    const { match: m, prices, source, rejected } = layout.read(get);
    if (m.status === 'finished' && m.startTimeUtc.getTime() > now.getTime())
      throw new RowError(
        `a score for a match that has not kicked off: ${m.startTimeUtc.toISOString()} is after now (${now.toISOString()}); fix the date, or leave the score empty for a fixture`,
      );
    if (options.names) {
      m.homeTeamName = options.names.canonical(m.regionName, m.homeTeamName);
      m.awayTeamName = options.names.canonical(m.regionName, m.awayTeamName);
    }
    const key = matchKey(m);
    const dup = seen.get(key);
    if (dup !== undefined)
      throw new RowError(
        sameResult(dup.match, m) && JSON.stringify(dup.prices) === JSON.stringify(prices)
          ? `duplicate of line ${dup.line} (same region, tournament, kick-off and teams)`
          : `conflicting duplicate of line ${dup.line} (same match, different result or prices); line ${dup.line} kept`,
      );
    for (const r of rejected) oddsRejected.push({ file, line, ...r });
    const parsed: ParsedMatch = { line, match: m, prices, source };
    seen.set(key, parsed);
    out.matches.push(parsed);
  };
  for (let i = headerAt + 1; i < lines.length; i++) {
    if (lines[i].trim() === '') continue;
    out.rowsRead++;
    try {
      readLine(lines[i], i + 1);
    } catch (err) {
      if (!(err instanceof RowError)) throw err;
      skip(i + 1, err.message, err.code);
    }
  }
  return out;
}
