import { type Database, openDatabase } from '../db/index.js';
import { MatchcastError } from '../domain/index.js';
import { INGEST_ENCODINGS } from '../ingest/index.js';
import {
  formatEvery,
  guessKind,
  isRemote,
  type PollOutcome,
  parseEvery,
  pollSource,
  SOURCE_KINDS,
  type SourceOptions,
  type SourceRecord,
  SourcesRepository,
  sourceKind,
} from '../sources/index.js';
import { createObjectStore, type ObjectStore } from '../storage/index.js';
import { type CommandIo, configOf, failureText, writersOf } from './command-io.js';
import { encodingOption } from './ingest.js';
import { repredictAfterPoll } from './source-repredict.js';
import { commandOutput } from './terminal.js';
import { dateOption, parseCliArgs, showHelp, UsageError } from './usage-error.js';

const USAGE = `Usage: matchcast sources <command>

  add NAME URL [options]   a source polled on its period (URL: http(s):// or a local path)
    --format <kind>        ${SOURCE_KINDS.map((k) => k.name).join(' | ')} (default from the URL:
                           *.json → odds-api-json, *fixtures* → fixtures-csv, *odds* → odds-csv, else results-csv)
${SOURCE_KINDS.map((k) => `                             ${k.name}: ${k.description}`).join('\n')}
    --every <period>       polling period, e.g. 15m, 6h, 1d (default 1h)
    --encoding <enc>       ${INGEST_ENCODINGS.join(', ')} (default utf-8, strict)
    --region R --tournament T   JSON feeds: the league of events whose sport_key is not known
    --bookmaker <key>      JSON feeds: one bookmaker's prices instead of the average
    --accept-new-teams     a name matching no known team becomes a team (default: its rows wait
                           for \`matchcast teams alias\` / \`teams add\`); for sources named like the data
  list [--json]            each source: last success, last error, rows added, next poll, unknown team names
  poll [NAME] [options]    poll one source (or every source) now
    --accept               take a changed header or a shrunk results file
    --no-repredict         do not re-predict the matches the poll changed
    --now <ISO>            the poll's "now" (default: the wall clock)
    --json                 print the outcomes as JSON
  remove NAME              forget a source (what it brought stays stored)

Exit code 0 on success, 1 when a poll failed or the database failed, 2 on bad usage.`;

export interface SourcesCommandIo extends CommandIo {
  deps?: { db: Database; store: ObjectStore };
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

function when(d: Date | null): string {
  return d ? d.toISOString().replace(/\.\d{3}Z$/, 'Z') : '-';
}

/** The `sources list` text: one block per source. */
function formatSources(list: readonly SourceRecord[]): string {
  if (list.length === 0) return 'no sources (add one with `matchcast sources add NAME URL`)\n';
  const lines: string[] = [];
  for (const s of list) {
    lines.push(`${s.name}  ${s.format} every ${formatEvery(s.everyMs)}  ${s.url}`);
    lines.push(
      `  last success ${when(s.lastSuccessAt)}; rows added ${s.lastRowsAdded} last poll, ${s.rowsAddedTotal} in all; next poll ${when(s.nextPollAt)}`,
    );
    // A good poll's warning (rows skipped, names held) is stamped with that poll's time.
    const warning = s.lastErrorAt !== null && s.lastErrorAt.getTime() === s.lastSuccessAt?.getTime();
    if (s.lastErrorCode)
      lines.push(
        `  last ${warning ? 'warning (of the last good poll)' : 'error'} ${when(s.lastErrorAt)} ${s.lastErrorCode}: ${s.lastErrorMessage ?? ''} (${s.errorsTotal} coded in all)`,
      );
    for (const u of s.unmatched)
      lines.push(
        `  unknown team ${u.region}: "${u.name}" (${u.rows} row(s) held); closest: ${u.closest.map((c) => `"${c}"`).join(', ') || 'none'} — matchcast teams alias "${u.name}" "<known name>"`,
      );
  }
  return `${lines.join('\n')}\n`;
}

function formatOutcome(o: PollOutcome): string {
  const head =
    o.status === 'ok'
      ? `${o.name}: ${o.rowsAdded} row(s) added (${o.report?.inserted ?? 0} inserted, ${o.report?.updated ?? 0} updated, ${o.report?.observationsAdded ?? 0} observation(s))`
      : o.status === 'not-modified'
        ? `${o.name}: nothing new`
        : o.status === 'busy'
          ? `${o.name}: another poll of it is running`
          : `${o.name}: failed ${o.code}: ${o.message}`;
  const lines = [head];
  if (o.status === 'ok' && o.code) lines.push(`  ${o.code}: ${o.message}`);
  for (const u of o.unmatched)
    lines.push(
      `  unknown team ${u.region}: "${u.name}"; closest: ${u.closest.map((c) => `"${c}"`).join(', ') || 'none'}`,
    );
  if (o.repredict) lines.push(`  predictions: ${o.repredict}`);
  return `${lines.join('\n')}\n`;
}

/** `matchcast sources …`. */
export async function sourcesCommand(argv: string[], io: SourcesCommandIo = {}): Promise<number> {
  const { out, err } = writersOf(io);
  const [sub, ...rest] = argv;
  if (!sub || sub === '--help' || sub === '-h' || sub === 'help') {
    out(`${USAGE}\n`);
    return sub ? 0 : 2;
  }
  const { values, positionals } = parseCliArgs(rest, {
    strings: ['format', 'every', 'encoding', 'region', 'tournament', 'bookmaker', 'now'],
    booleans: ['accept-new-teams', 'accept', 'no-repredict', 'json'],
    positionals: true,
  });
  if (values.help) return showHelp(USAGE, out);
  const want = (n: number, what: string) => {
    if (positionals.length !== n) throw new UsageError(`sources ${sub} expects ${what}`);
  };
  let add: { name: string; url: string; format: string; everyMs: number; options: SourceOptions } | undefined;
  if (sub === 'add') {
    want(2, 'NAME URL');
    const [name, url] = positionals as [string, string];
    if (!NAME.test(name))
      throw new UsageError(`a source name is letters, digits, ".", "_" or "-" (at most 63), got "${name}"`);
    const kind = values.format === undefined ? guessKind(url) : sourceKind(values.format);
    if (!kind)
      throw new UsageError(
        `--format expects one of ${SOURCE_KINDS.map((k) => k.name).join(', ')}, got "${values.format}"`,
      );
    const encoding = encodingOption(values.encoding);
    if ((values.region === undefined) !== (values.tournament === undefined))
      throw new UsageError('--region and --tournament go together');
    let everyMs: number;
    try {
      everyMs = parseEvery(values.every ?? '1h');
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    const options: SourceOptions = {};
    if (encoding) options.encoding = encoding;
    if (values.region) options.region = values.region;
    if (values.tournament) options.tournament = values.tournament;
    if (values.bookmaker) options.bookmaker = values.bookmaker;
    if (values['accept-new-teams']) options.acceptNewTeams = true;
    if (!isRemote(url) && !url.startsWith('file://') && !url.startsWith('/'))
      throw new UsageError(`a local source is an absolute path (or file:// URL), got "${url}"`);
    add = { name, url, format: kind.name, everyMs, options };
  } else if (sub === 'list') want(0, 'no argument');
  else if (sub === 'remove') want(1, 'NAME');
  else if (sub === 'poll') {
    if (positionals.length > 1) throw new UsageError('sources poll expects at most one NAME');
  } else throw new UsageError(`unknown sources command "${sub}" (add, list, poll, remove)`);
  const now = dateOption('now', values.now);

  const config = configOf(io, err);
  if (!config) return 1;
  const log = commandOutput({
    name: 'matchcast-sources',
    level: config.logLevel,
    json: true,
    jsonTo: 'stderr',
  }).log;
  let db: Database | undefined;
  let store: ObjectStore | undefined;
  try {
    db = io.deps?.db ?? (await openDatabase(config));
    const repo = new SourcesRepository(db);
    if (add) {
      await repo.add(add);
      out(`source ${add.name} added: ${add.format} every ${formatEvery(add.everyMs)} from ${add.url}\n`);
      return 0;
    }
    if (sub === 'list') {
      const list = await repo.list();
      out(values.json ? `${JSON.stringify(list, null, 2)}\n` : formatSources(list));
      return 0;
    }
    if (sub === 'remove') {
      const name = positionals[0] as string;
      if (!(await repo.remove(name)))
        throw new MatchcastError('MC_ERR_NOT_FOUND', `no source named "${name}"`);
      out(`source ${name} removed (what it brought stays stored)\n`);
      return 0;
    }
    store = io.deps?.store ?? createObjectStore(config, log);
    const names =
      positionals.length === 1 ? [positionals[0] as string] : (await repo.list()).map((s) => s.name);
    const afterIngest = values['no-repredict'] ? undefined : repredictAfterPoll({ config, db, store, log });
    const outcomes: PollOutcome[] = [];
    for (const name of names)
      outcomes.push(
        await pollSource({ db, store, log, afterIngest }, name, { now, accept: values.accept === true }),
      );
    out(
      values.json
        ? `${JSON.stringify(
            outcomes.map(({ report, ...o }) => ({ ...o, skipped: report?.skipped.length ?? 0 })),
            null,
            2,
          )}\n`
        : outcomes.map(formatOutcome).join(''),
    );
    return outcomes.some((o) => o.status === 'failed') ? 1 : 0;
  } catch (e) {
    err(`sources ${sub}: ${failureText(e)}\n`);
    return 1;
  } finally {
    if (!io.deps) {
      await db?.close().catch(() => undefined);
      await store?.close().catch(() => undefined);
    }
  }
}
