import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { MatchesRepository } from '../db/index.js';
import { MatchcastError, type OddsRecord } from '../domain/index.js';
import { parseCsvFile } from './csv-file.js';
import { mergeOddsFile, toOddsRecord } from './odds-file.js';
import type { IngestDeps, IngestReport, ParsedMatch, SkippedRow } from './types.js';

/** The CSV files of `source`: the file itself, or the `*.csv` files of a folder sorted by name. */
export async function listCsvFiles(source: string): Promise<string[]> {
  const info = await stat(source).catch(() => null);
  if (!info) throw new MatchcastError('MC_ERR_NOT_FOUND', `No such file or folder: ${source}`);
  if (info.isFile()) return [source];
  const names = (await readdir(source)).filter((n) => n.toLowerCase().endsWith('.csv')).sort();
  return names.map((n) => path.join(source, n));
}

/**
 * Upserts parsed matches in one transaction (a file is applied whole or not at all) and returns the
 * odds records keyed by the ids the database assigned.
 */
export async function applyMatches(
  deps: IngestDeps,
  parsed: readonly ParsedMatch[],
): Promise<{ inserted: number; updated: number; unchanged: number; odds: OddsRecord[] }> {
  const result = await deps.db.transaction((tx) =>
    new MatchesRepository(tx).upsertMatches(parsed.map((p) => p.match)),
  );
  const odds: OddsRecord[] = [];
  parsed.forEach((p, i) => {
    if (p.odds) odds.push(toOddsRecord(result.ids[i], p.odds));
  });
  return { inserted: result.inserted, updated: result.updated, unchanged: result.unchanged, odds };
}

/**
 * Imports a CSV file or a folder of them (the football CSV layout and the football-data.co.uk
 * layout, detected per file from its header), then merges their odds into `raw-data/odds.parquet`.
 * Malformed rows are skipped and reported; each file is applied in one transaction. Idempotent: a
 * second run over the same files reports everything unchanged and leaves the odds file as it was.
 */
export async function ingestPath(source: string, deps: IngestDeps): Promise<IngestReport> {
  const started = performance.now();
  const files = await listCsvFiles(source);
  const report: IngestReport = {
    files: 0,
    rowsRead: 0,
    inserted: 0,
    updated: 0,
    unchanged: 0,
    skipped: [],
    oddsRows: 0,
    ms: 0,
  };
  const odds: OddsRecord[] = [];
  for (const file of files) {
    let parsed: Awaited<ReturnType<typeof parseCsvFile>>;
    try {
      parsed = await parseCsvFile(file);
    } catch (err) {
      report.skipped.push({ file, line: 0, reason: `cannot read the file: ${(err as Error).message}` });
      continue;
    }
    report.files++;
    report.rowsRead += parsed.rowsRead;
    report.skipped.push(...parsed.skipped);
    if (parsed.matches.length > 0) {
      const applied = await applyMatches(deps, parsed.matches);
      report.inserted += applied.inserted;
      report.updated += applied.updated;
      report.unchanged += applied.unchanged;
      odds.push(...applied.odds);
    }
    deps.log?.info(
      {
        file,
        format: parsed.format,
        rows: parsed.rowsRead,
        loaded: parsed.matches.length,
        skipped: parsed.skipped.length,
      },
      'ingest: file applied',
    );
  }
  report.oddsRows = (await mergeOddsFile(deps.store, odds)).rows;
  report.ms = Math.round(performance.now() - started);
  logSkipped(deps, report.skipped);
  return report;
}

function logSkipped(deps: IngestDeps, skipped: readonly SkippedRow[]): void {
  if (skipped.length > 0)
    deps.log?.warn({ skipped: skipped.length, first: skipped.slice(0, 5) }, 'ingest: rows skipped');
}
