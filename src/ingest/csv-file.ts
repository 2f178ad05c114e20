import { readFile } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';
import type { Field } from './fields.js';
import { isFootballCsvHeader, readFootballCsvRow } from './football-csv.js';
import { isFootballDataHeader, readFootballDataRow } from './football-data-co-uk.js';
import type { ParsedMatch, RowResult, SkippedRow } from './types.js';

/** The CSV layouts ingest understands, detected from the header. */
export type CsvFormat = 'football-csv' | 'football-data.co.uk';

export interface ParsedFile {
  file: string;
  format: CsvFormat | null;
  /** Data rows read, including the malformed ones. */
  rowsRead: number;
  matches: ParsedMatch[];
  skipped: SkippedRow[];
}

export function detectFormat(header: readonly string[]): CsvFormat | null {
  if (isFootballCsvHeader(header)) return 'football-csv';
  if (isFootballDataHeader(header)) return 'football-data.co.uk';
  return null;
}

const READERS: Record<CsvFormat, (get: Field) => RowResult> = {
  'football-csv': readFootballCsvRow,
  'football-data.co.uk': readFootballDataRow,
};

/**
 * Parses one CSV file. Rows that are malformed (bad quoting, too few fields, invalid values, a
 * second row for the same match) are returned in `skipped` with their line; the rest in `matches`.
 */
export async function parseCsvFile(file: string): Promise<ParsedFile> {
  const text = await readFile(file, 'utf8');
  return parseCsvText(text, file);
}

/**
 * Records are read one line at a time (neither layout has multi-line fields), so a broken quote
 * costs its own line rather than swallowing the rest of the file.
 */
function parseLine(line: string): string[] {
  // Fast path: without quotes a record is a plain split (csv-parse per line costs ~50 µs).
  if (!line.includes('"')) return line.split(',');
  const rows = parse(line, { relax_column_count: true, relax_quotes: true }) as string[][];
  if (rows.length !== 1) throw new Error(`expected one record, got ${rows.length}`);
  return rows[0];
}

export function parseCsvText(text: string, file: string): ParsedFile {
  const skipped: SkippedRow[] = [];
  const out: ParsedFile = { file, format: null, rowsRead: 0, matches: [], skipped };
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const headerAt = lines.findIndex((l) => l.trim() !== '');
  if (headerAt < 0) {
    skipped.push({ file, line: 1, reason: 'empty file: no header' });
    return out;
  }
  let header: string[];
  try {
    header = parseLine(lines[headerAt]).map((h) => h.trim());
  } catch (err) {
    skipped.push({ file, line: headerAt + 1, reason: `unparseable header: ${(err as Error).message}` });
    return out;
  }
  const format = detectFormat(header);
  if (!format) {
    skipped.push({
      file,
      line: headerAt + 1,
      reason: 'unrecognised header: expected the football CSV or the football-data.co.uk layout',
    });
    return out;
  }
  out.format = format;
  const read = READERS[format];
  const index = new Map<string, number>();
  header.forEach((h, i) => {
    if (h !== '' && !index.has(h)) index.set(h, i);
  });
  const seen = new Map<string, number>();

  for (let i = headerAt + 1; i < lines.length; i++) {
    const text = lines[i];
    if (text.trim() === '') continue;
    const line = i + 1;
    out.rowsRead++;
    let record: string[];
    try {
      record = parseLine(text);
    } catch (err) {
      skipped.push({
        file,
        line,
        reason: `unparseable CSV: ${(err as Error).message.replace(/ at line \d+/, '')}`,
      });
      continue;
    }
    if (record.length < header.length || record.slice(header.length).some((v) => v.trim() !== '')) {
      skipped.push({ file, line, reason: `expected ${header.length} fields, got ${record.length}` });
      continue;
    }
    const get: Field = (name) => {
      const at = index.get(name);
      return at === undefined ? undefined : record[at].trim();
    };
    const res = read(get);
    if (!res.ok) {
      skipped.push({ file, line, reason: res.reason });
      continue;
    }
    const m = res.match;
    const key = [
      m.regionName,
      m.tournamentName,
      m.startTimeUtc.getTime(),
      m.homeTeamName,
      m.awayTeamName,
    ].join('\u0000');
    const dupOf = seen.get(key);
    if (dupOf !== undefined) {
      skipped.push({
        file,
        line,
        reason: `duplicate of line ${dupOf} (same region, tournament, kick-off and teams)`,
      });
      continue;
    }
    seen.set(key, line);
    out.matches.push({ line, match: m, odds: res.odds });
  }
  return out;
}
