import { createHash } from 'node:crypto';
import { isMatchcastError, MatchcastError } from '../domain/index.js';
import {
  csvLines,
  decodeText,
  type IngestReport,
  ingestPath,
  type ParsedFile,
  type TeamNames,
} from '../ingest/index.js';
import {
  sourceErrorsTotal,
  sourceLastSuccess,
  sourcePeriod,
  sourcePollsTotal,
  sourceRowsTotal,
} from '../metrics.js';
import { type FetchBodyOptions, type FetchedBody, fetchBody } from './fetch-body.js';
import { sourceKind } from './kinds/index.js';
import { type PollSuccess, SourcesRepository } from './sources-repository.js';
import { closestTeams, loadTeamResolver } from './team-resolver.js';
import type { SourceDeps, SourceKind, SourceRecord, UnmatchedTeam } from './types.js';

export interface PollOptions {
  /** The fetch time and observation time of undated prices. Default the wall clock. */
  now?: Date;
  /** Take a changed header or a shrunk results file instead of refusing it. */
  accept?: boolean;
  fetch?: Omit<FetchBodyOptions, 'etag' | 'lastModified'>;
  /** Where the body comes from. Default {@link fetchBody} of the source's URL (the replay hands its releases in). */
  fetcher?: (
    source: SourceRecord,
    validators: Pick<FetchBodyOptions, 'etag' | 'lastModified'>,
  ) => Promise<FetchedBody>;
}

export interface PollOutcome {
  name: string;
  status: 'ok' | 'not-modified' | 'failed' | 'busy';
  /** The coded error of a failed poll, or the warning of a good one (rows skipped, unknown teams). */
  code: string | null;
  message: string | null;
  rowsAdded: number;
  report: IngestReport | null;
  unmatched: UnmatchedTeam[];
  repredict: string | null;
}

/** Sets the staleness gauges of every source from its stored state (an API process, on scrape). */
export function setSourceGauges(list: readonly SourceRecord[]): void {
  for (const s of list) {
    sourcePeriod.labels(s.name).set(s.everyMs / 1000);
    sourceLastSuccess.labels(s.name).set((s.lastSuccessAt ?? s.createdAt).getTime() / 1000);
  }
}

/** Matches of an odds row are looked up within this distance of its kick-off (feeds round or shift times). */
const KICKOFF_TOLERANCE_MS = 3 * 86_400_000;

function fieldCount(line: string): number {
  let n = 1;
  let quoted = false;
  for (const c of line) {
    if (c === '"') quoted = !quoted;
    else if (c === ',' && !quoted) n++;
  }
  return n;
}

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** Refuses an empty body, a changed header, a cut last row, or a results file shorter than last time. */
function checkCsv(
  text: string,
  source: SourceRecord,
  kind: SourceKind,
  bytes: number,
  accept: boolean,
): string {
  const { lines, headerAt } = csvLines(text);
  if (headerAt < 0) throw new MatchcastError('MC_ERR_SOURCE_EMPTY', `${source.name}: the body is empty`);
  const header = lines[headerAt].trim();
  if (!accept && source.header !== null && header !== source.header)
    throw new MatchcastError(
      'MC_ERR_SOURCE_LAYOUT_CHANGED',
      `${source.name}: the header changed (was ${source.header.length} characters, ${fieldCount(source.header)} columns; now ${header.length}, ${fieldCount(header)}); \`sources poll ${source.name} --accept\` takes it`,
    );
  if (!/\n\s*$/.test(text)) {
    const last = lines[lines.length - 1];
    if (lines.length > 1 && fieldCount(last) < fieldCount(header))
      throw new MatchcastError(
        'MC_ERR_SOURCE_TRUNCATED',
        `${source.name}: the last row is cut (${fieldCount(last)} of ${fieldCount(header)} fields, no line end)`,
      );
  }
  if (!accept && kind.grows && source.bodyBytes !== null && bytes < source.bodyBytes)
    throw new MatchcastError(
      'MC_ERR_SOURCE_SHRUNK',
      `${source.name}: ${bytes} bytes, ${source.bodyBytes} at the last good poll; \`sources poll ${source.name} --accept\` takes it`,
    );
  return header;
}

/** When a growing body extends the last good one byte for byte: header and appended lines only, else all. */
function unreadPart(
  body: Buffer,
  text: string,
  source: SourceRecord,
  kind: SourceKind,
  header: string,
): string {
  const prev = source.bodyBytes;
  if (!kind.grows || source.fullReadNext || prev === null || source.bodySha256 === null) return text;
  if (body.length < prev || sha256(body.subarray(0, prev)) !== source.bodySha256) return text;
  if (body[prev - 1] !== 0x0a) return text;
  const tail = decodeText(body.subarray(prev), source.options.encoding);
  if (!tail.ok) return text;
  // Blank lines keep the line numbers of the whole file.
  const before = body.subarray(0, prev).toString('latin1').split('\n').length - 1;
  return `${header}${'\n'.repeat(Math.max(before, 1))}${tail.text}`;
}

/** Maps team names to known teams; a row naming an unknown one in a region with teams is held back. */
function resolveTeams(parsed: ParsedFile, names: TeamNames, acceptNew: boolean): UnmatchedTeam[] {
  const unmatched = new Map<string, UnmatchedTeam>();
  const miss = (region: string, name: string) => {
    const key = `${region}\u0000${name}`;
    const u = unmatched.get(key) ?? { region, name, closest: closestTeams(names, region, name), rows: 0 };
    u.rows++;
    unmatched.set(key, u);
    return u;
  };
  const settle = (
    line: number,
    ref: { regionName: string; homeTeamName: string; awayTeamName: string },
    accept: boolean,
  ) => {
    // A region without teams: the names start the league (an odds row there is rejected by ingest).
    if (names.teams(ref.regionName).size === 0) return true;
    const home = names.lookup(ref.regionName, ref.homeTeamName);
    const away = names.lookup(ref.regionName, ref.awayTeamName);
    if ((home && away) || accept) {
      ref.homeTeamName = home ?? ref.homeTeamName;
      ref.awayTeamName = away ?? ref.awayTeamName;
      return true;
    }
    const held = [home ? null : ref.homeTeamName, away ? null : ref.awayTeamName]
      .filter((n) => n !== null)
      .map((n) => miss(ref.regionName, n));
    parsed.skipped.push({
      file: parsed.file,
      code: 'MC_ERR_SOURCE_UNKNOWN_TEAMS',
      line,
      reason: `unknown team ${held.map((u) => `"${u.name}" (closest: ${u.closest.join(', ') || 'none'})`).join(' and ')}; \`matchcast teams alias\` settles it`,
    });
    return false;
  };
  parsed.matches = parsed.matches.filter((p) => settle(p.line, p.match, acceptNew));
  parsed.oddsRows = parsed.oddsRows.filter((r) => 'matchId' in r.ref || settle(r.line, r.ref, false));
  return [...unmatched.values()];
}

/** Odds rows by natural key → the stored match of those teams nearest the kick-off. */
async function resolveKickoffs(deps: SourceDeps, parsed: ParsedFile): Promise<void> {
  for (const r of parsed.oddsRows) {
    if ('matchId' in r.ref) continue;
    const k = r.ref.startTimeUtc.getTime();
    const [m] = await deps.db.query<{ id: number }>(
      `SELECT id FROM matches WHERE region_name = $1 AND home_team_name = $2 AND away_team_name = $3
         AND start_time_utc BETWEEN $4 AND $5
       ORDER BY abs(extract(epoch FROM start_time_utc - $6::timestamptz)), id LIMIT 1`,
      [
        r.ref.regionName,
        r.ref.homeTeamName,
        r.ref.awayTeamName,
        new Date(k - KICKOFF_TOLERANCE_MS),
        new Date(k + KICKOFF_TOLERANCE_MS),
        r.ref.startTimeUtc,
      ],
    );
    if (m) r.ref = { matchId: Number(m.id) };
  }
}

function warningOf(report: IngestReport, unmatched: UnmatchedTeam[]): PollSuccess['warning'] {
  if (unmatched.length > 0)
    return {
      code: 'MC_ERR_SOURCE_UNKNOWN_TEAMS',
      message: `unknown team names: ${unmatched.map((u) => `${u.region}: "${u.name}" (closest: ${u.closest.join(', ') || 'none'})`).join('; ')}`,
    };
  const n = report.skipped.length + report.conflicts.length + report.oddsRejected.length;
  if (n === 0) return null;
  const [skipped, conflict, rejected] = [report.skipped[0], report.conflicts[0], report.oddsRejected[0]];
  const example = skipped
    ? `line ${skipped.line}: ${skipped.reason}`
    : conflict
      ? `line ${conflict.line}: result ${conflict.old} → ${conflict.new} refused`
      : `line ${rejected?.line}: ${rejected?.reason}`;
  return {
    code: 'MC_ERR_SOURCE_ROWS_SKIPPED',
    message: `${report.skipped.length} row(s) skipped, ${report.conflicts.length} result conflict(s) refused, ${report.oddsRejected.length} price set(s) rejected; e.g. ${example}`,
  };
}

/** Polls one source; a fault changes no data and records a coded error; the last good body stays the base. */
export async function pollSource(
  deps: SourceDeps,
  name: string,
  options: PollOptions = {},
): Promise<PollOutcome> {
  const repo = new SourcesRepository(deps.db);
  const now = options.now ?? new Date();
  const outcome: PollOutcome = {
    name,
    status: 'busy',
    code: null,
    message: null,
    rowsAdded: 0,
    report: null,
    unmatched: [],
    repredict: null,
  };
  // A poll holds its source for 10 minutes at most: then another may take it over.
  const source = await repo.lease(name, now, new Date(now.getTime() + 600_000));
  if (!source) {
    if (!(await repo.get(name))) throw new MatchcastError('MC_ERR_NOT_FOUND', `no source named "${name}"`);
    return outcome;
  }
  const next = new Date(now.getTime() + source.everyMs);
  sourcePeriod.labels(name).set(source.everyMs / 1000);
  const log = deps.log?.child({ source: name });
  try {
    const kind = sourceKind(source.format);
    if (!kind) throw new MatchcastError('MC_ERR_CONFIG', `unknown source format "${source.format}"`);
    const conditional = !source.fullReadNext && !options.accept;
    const { etag, lastModified } = conditional ? source : { etag: null, lastModified: null };
    const fetched = options.fetcher
      ? await options.fetcher(source, { etag, lastModified })
      : await fetchBody(source.url, { ...options.fetch, etag, lastModified });
    const digest = fetched.status === 'ok' ? sha256(fetched.body) : null;
    if (fetched.status === 'not-modified' || (conditional && digest === source.bodySha256)) {
      await repo.unchanged(name, now, next);
      sourceLastSuccess.labels(name).set(now.getTime() / 1000);
      sourcePollsTotal.labels(name, 'not_modified').inc();
      log?.info('source: nothing new');
      return { ...outcome, status: 'not-modified', unmatched: source.unmatched };
    }
    const body = fetched.body;
    if (body.length === 0 || body.toString('latin1').trim() === '')
      throw new MatchcastError('MC_ERR_SOURCE_EMPTY', `${name}: the body is empty`);
    const decoded = decodeText(body, source.options.encoding);
    if (!decoded.ok)
      throw new MatchcastError(
        'MC_ERR_SOURCE_ENCODING',
        `${name}: not ${source.options.encoding ?? 'utf-8'} at line ${decoded.line}, byte ${decoded.byte} (${decoded.reason}); declare the encoding with \`sources add --encoding\``,
      );
    let header: string | null = null;
    let text = decoded.text;
    if (kind.body === 'csv') {
      header = checkCsv(text, source, kind, body.length, options.accept === true);
      text = unreadPart(body, text, source, kind, header);
    }
    const parsed = kind.parse(text, { file: name, fetchedAt: now, options: source.options });
    const names = await loadTeamResolver(deps.db);
    const unmatched = resolveTeams(parsed, names, source.options.acceptNewTeams === true);
    await resolveKickoffs(deps, parsed);
    const report = await ingestPath(parsed, { db: deps.db, store: deps.store, log }, { now });
    const rowsAdded = report.inserted + report.updated + report.observationsAdded;
    const warning = warningOf(report, unmatched);
    const { code = null, message = null } = warning ?? {};
    await repo.succeeded(name, now, next, {
      etag: fetched.etag,
      lastModified: fetched.lastModified,
      bodyBytes: body.length,
      bodySha256: digest as string,
      header,
      rowsAdded,
      unmatched,
      warning,
    });
    sourceLastSuccess.labels(name).set(now.getTime() / 1000);
    sourcePollsTotal.labels(name, 'ok').inc();
    sourceRowsTotal.labels(name).inc(rowsAdded);
    if (code) {
      sourceErrorsTotal.labels(name, code).inc();
      log?.warn({ code, unmatched }, `source: ${message}`);
    }
    const { inserted, updated, observationsAdded: observations, rowsRead: rows } = report;
    log?.info({ inserted, updated, observations, rows }, 'source: polled');
    let repredict: string | null = null;
    if (deps.afterIngest && report.changedMatchIds.length > 0) {
      try {
        repredict = (await deps.afterIngest(report.changedMatchIds, now, report)) ?? null;
      } catch (err) {
        // The data is in; only the refresh failed: the next poll or pipeline run catches up.
        repredict = `re-prediction failed: ${(err as Error).message}`;
        log?.error({ err: (err as Error).message }, 'source: re-prediction failed (the data is stored)');
      }
    }
    return { ...outcome, status: 'ok', code, message, rowsAdded, report, unmatched, repredict };
  } catch (err) {
    const code = isMatchcastError(err) ? err.code : 'MC_ERR_INTERNAL';
    const message = (err as Error).message;
    await repo.failed(name, now, next, code, message).catch(() => undefined);
    // The staleness alert compares this with the period: a source that never succeeded counts from its creation.
    sourceLastSuccess.labels(name).set((source.lastSuccessAt ?? source.createdAt).getTime() / 1000);
    sourcePollsTotal.labels(name, 'failed').inc();
    sourceErrorsTotal.labels(name, code).inc();
    log?.warn({ code }, `source: poll failed: ${message}`);
    return { ...outcome, status: 'failed', code, message };
  }
}
