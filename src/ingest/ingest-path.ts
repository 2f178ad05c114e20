import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { DatasetIdentity, MatchesRepository, PendingRepredictions } from '../db/index.js';
import {
  type Match,
  MatchcastError,
  type OddsObservation,
  OddsTimeline,
  OPENING_LEAD_MS,
} from '../domain/index.js';
import { type ParsedFile, parseCsvFile, sameResult } from './csv-file.js';
import { ObservationColumns } from './observation-columns.js';
import { mergeOddsObservations } from './observations-file.js';
import { OddsColumns } from './odds-columns.js';
import { mergeOddsFile, summariseOdds } from './odds-file.js';
import type { ParsedOddsRow } from './odds-only.js';
import { TeamNames } from './team-names.js';
import type {
  IngestDeps,
  IngestOptions,
  IngestReport,
  OddsRejection,
  ParsedMatch,
  PriceSet,
  ResultConflict,
} from './types.js';

export async function listCsvFiles(source: string): Promise<string[]> {
  const info = await stat(source).catch(() => null);
  if (!info) throw new MatchcastError('MC_ERR_NOT_FOUND', `No such file or folder: ${source}`);
  if (info.isFile()) return [source];
  const names = (await readdir(source)).filter((n) => n.toLowerCase().endsWith('.csv')).sort();
  return names.map((n) => path.join(source, n));
}

/** An undated price as an observation: opening 48 h before kick-off, closing at it, a fixture's at `now`. */
export function stampPrices(
  matchId: number,
  kickoff: Date,
  p: PriceSet,
  source: string,
  now: Date,
): OddsObservation {
  const k = kickoff.getTime();
  const n = now.getTime();
  let kind = p.kind;
  let at: number;
  if (p.observedAt) at = p.observedAt.getTime();
  else if (p.kind === 'opening') at = Math.min(k - OPENING_LEAD_MS, n);
  else if (k <= n) at = k;
  else {
    kind = 'intermediate';
    at = n;
  }
  return { match_id: matchId, market: p.market, kind, observed_at: new Date(at), prices: p.prices, source };
}

function describe(m: Pick<Match, 'status' | 'homeScore' | 'awayScore' | 'season'>): string {
  return m.status === 'finished'
    ? `finished ${m.homeScore}-${m.awayScore} (${m.season})`
    : `scheduled, no score (${m.season})`;
}

export const SYNTHETIC_FILE = 'synthetic';

interface IngestRun {
  report: IngestReport;
  /** Every observation the files gave, for the merge at the end. */
  observations: ObservationColumns;
  changed: Set<number>;
  started: number;
}

export function startRun(): IngestRun {
  return {
    report: {
      files: 0,
      rowsRead: 0,
      inserted: 0,
      updated: 0,
      unchanged: 0,
      skipped: [],
      conflicts: [],
      oddsRejected: [],
      nearDuplicateTeams: [],
      observationsRead: 0,
      observations: 0,
      observationsAdded: 0,
      oddsRows: 0,
      ms: 0,
      changedMatchIds: [],
    },
    observations: new ObservationColumns(),
    changed: new Set(),
    started: performance.now(),
  };
}

/** Upserts a file's matches in one transaction; a finished result changes only with `force` (listed anyway). */
export async function applyMatches(
  deps: IngestDeps,
  run: IngestRun,
  parsed: readonly ParsedMatch[],
  file: string,
  options: IngestOptions = {},
): Promise<void> {
  const force = options.force === true;
  const now = options.now ?? new Date();
  const { report } = run;
  const result = await deps.db.transaction(async (tx) => {
    // The data set's identity first: the synthetic league and real data never mix.
    await new DatasetIdentity(tx).claim(file === SYNTHETIC_FILE ? 'synthetic' : 'files', file);
    const repo = new MatchesRepository(tx);
    const matches = parsed.map((p) => p.match);
    const conflicts: ResultConflict[] = [];
    for (const [i, old] of await repo.byKeys(matches, true)) {
      const m = matches[i];
      if (!sameResult(m, old))
        conflicts.push({
          file,
          line: parsed[i].line,
          match_id: old.id,
          old: describe(old),
          new: describe(m),
          applied: force,
        });
    }
    const upserted = await repo.upsertMatches(matches, { force });
    // With the data, in the same transaction: what the served predictions must catch up on.
    await new PendingRepredictions(tx).record(upserted.changed);
    return { ...upserted, conflicts };
  });
  // A refused conflict left its match as it was: it is counted as unchanged, not updated.
  report.inserted += result.inserted;
  report.updated += result.updated;
  report.unchanged += result.unchanged;
  appendAll(report.conflicts, result.conflicts);
  for (const id of result.changed) run.changed.add(id);
  parsed.forEach((p, i) => {
    for (const set of p.prices)
      run.observations.push(stampPrices(result.ids[i], p.match.startTimeUtc, set, p.source, now));
  });
}

/** Odds-only rows to stored matches (never inventing one); unknown or in-play rows are rejected per line. */
async function resolveOddsRows(
  deps: IngestDeps,
  rows: readonly ParsedOddsRow[],
  names: TeamNames,
  file: string,
  rejected: OddsRejection[],
  out: ObservationColumns,
): Promise<void> {
  const repo = new MatchesRepository(deps.db);
  const byId = await repo.byIds(rows.flatMap(({ ref }) => ('matchId' in ref ? [ref.matchId] : [])));
  const keyed = rows.flatMap(({ ref }, i) => ('matchId' in ref ? [] : [{ i, ref }]));
  const byKey = await repo.byKeys(
    keyed.map(({ ref }) => ({
      ...ref,
      homeTeamName: names.lookup(ref.regionName, ref.homeTeamName) ?? ref.homeTeamName,
      awayTeamName: names.lookup(ref.regionName, ref.awayTeamName) ?? ref.awayTeamName,
    })),
  );
  const matchOfRow = new Map(keyed.map((k, j) => [k.i, byKey.get(j)]));
  rows.forEach((r, i) => {
    const m = 'matchId' in r.ref ? byId.get(r.ref.matchId) : matchOfRow.get(i);
    const reason = !m
      ? 'no such match (odds-only files never create matches)'
      : r.observedAt.getTime() > m.startTimeUtc.getTime()
        ? `observed_at ${r.observedAt.toISOString()} is after kick-off ${m.startTimeUtc.toISOString()} (in-play prices are not kept)`
        : null;
    for (const p of r.prices)
      if (!m || reason !== null)
        rejected.push({ file, line: r.line, market: p.market, kind: r.kind, reason: reason ?? '' });
      else out.push(stampPrices(m.id, m.startTimeUtc, p, r.source, r.observedAt));
  });
}

/** Imports a CSV file, a folder of them or a parsed file, then merges observations and odds. Idempotent. */
export async function ingestPath(
  source: string | ParsedFile,
  deps: IngestDeps,
  options: IngestOptions = {},
): Promise<IngestReport> {
  const run = startRun();
  const { report } = run;
  const files = typeof source === 'string' ? await listCsvFiles(source) : [source];
  const names = await TeamNames.load(deps.db);
  // One file at a time, dropped before the next is read: only its observations (as columns) are kept.
  for (const file of files) {
    const parsed =
      typeof file !== 'string'
        ? file
        : await parseCsvFile(file, { encoding: options.encoding, names, now: options.now }).catch((err) => {
            const reason = `cannot read the file: ${(err as Error).message}`;
            report.skipped.push({ file, code: 'MC_ERR_INVALID_ROW', line: 0, reason });
            return null;
          });
    if (!parsed) continue;
    report.files++;
    report.rowsRead += parsed.rowsRead;
    appendAll(report.skipped, parsed.skipped);
    appendAll(report.oddsRejected, parsed.oddsRejected);
    if (parsed.matches.length > 0) await applyMatches(deps, run, parsed.matches, parsed.file, options);
    if (parsed.oddsRows.length > 0)
      await resolveOddsRows(deps, parsed.oddsRows, names, parsed.file, report.oddsRejected, run.observations);
    deps.log?.info(
      {
        file: parsed.file,
        format: parsed.format,
        rows: parsed.rowsRead,
        loaded: parsed.matches.length + parsed.oddsRows.length,
        skipped: parsed.skipped.length,
      },
      'ingest: file applied',
    );
  }
  report.nearDuplicateTeams = names.nearDuplicates();
  await storeObservations(deps, run);
  logSkipped(deps, report);
  return report;
}

/** Merges the run's observations into the file, then rewrites the odds summaries of the matches touched. */
export async function storeObservations(deps: IngestDeps, run: IngestRun): Promise<void> {
  const { report, observations } = run;
  report.observationsRead += observations.length;
  const merged = await mergeOddsObservations(deps, observations);
  report.observations = merged.rows;
  report.observationsAdded += merged.added + merged.replaced;
  for (const id of merged.changedMatches) run.changed.add(id);
  report.changedMatchIds = [...run.changed].sort((a, b) => a - b);
  const touched = new Set(observations.matchId.subarray(0, observations.length));
  // Summarised one match at a time straight into columns: no record per match is kept.
  const summaries = new OddsColumns(touched.size);
  for (const [id, list] of merged.observationsOf(touched)) {
    const r = summariseOdds(id, OddsTimeline.from(list));
    if (r) summaries.push(r);
  }
  report.oddsRows = (await mergeOddsFile(deps.store, summaries.fit())).rows;
  report.ms = Math.round(performance.now() - run.started);
}

function logSkipped(deps: IngestDeps, report: IngestReport): void {
  const lists = [
    ['skipped', report.skipped, 'ingest: rows skipped'],
    ['conflicts', report.conflicts, 'ingest: result conflicts'],
    ['rejected', report.oddsRejected, 'ingest: odds rejected'],
  ] as const;
  for (const [name, list, msg] of lists)
    if (list.length > 0) deps.log?.warn({ [name]: list.length, first: list.slice(0, 5) }, msg);
}

/** `push(...items)` passes every item as an argument: a file of ~35k rows (100k observations) overflows the stack. */
function appendAll<T>(target: T[], items: readonly T[]): void {
  for (const item of items) target.push(item);
}
