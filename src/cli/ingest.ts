import { type Database, openDatabase, PendingRepredictions } from '../db/index.js';
import {
  INGEST_ENCODINGS,
  type IngestEncoding,
  type IngestOptions,
  type IngestReport,
  ingestPath,
  ingestSynthetic,
  listCsvFiles,
} from '../ingest/index.js';
import { repredictMatches } from '../pipeline/index.js';
import { createRegistry, type ModelRegistry } from '../registry/index.js';
import { createObjectStore, type ObjectStore } from '../storage/index.js';
import { useLeanHeap } from './batch-process.js';
import { type CommandIo, configOf, failureText, writersOf } from './command-io.js';
import { commandOutput } from './terminal.js';
import { dateOption, intOption, parseCliArgs, parseOrUsage, showHelp, UsageError } from './usage-error.js';

/** Bounds of the synthetic league's options. */
const SYNTHETIC = { regions: [1, 100], teams: [2, 40], seasons: [1, 20] } as const;

const USAGE = `Usage: matchcast ingest --source <path> | --synthetic [options]

From files:
  --source <path>     a CSV file or a folder of CSVs: the shared football layout (Date, country, league,
                      Season, HomeTeam, AwayTeam, FTHG, FTAG, home_open … away_close) or the
                      football-data.co.uk layout (Div, Date, Time, HomeTeam, AwayTeam, FTHG, FTAG, FTR, odds)
  --force             let a file change or erase the result of a finished match (each change is listed)
  --encoding <enc>    the files' text encoding: utf-8 (default, strict: a bad byte refuses the file),
                      latin1 or windows-1252

Synthetic league:
  --synthetic         generate and load a deterministic synthetic multi-region league
  --seed <N>          PRNG seed, an integer (default 42)
  --regions <N>       regions, ${SYNTHETIC.regions.join('..')} (default 4)
  --teams <N>         teams per region, ${SYNTHETIC.teams.join('..')} (default: 12–16 drawn per region)
  --seasons <N>       seasons per region, ${SYNTHETIC.seasons.join('..')} (default 4)

Both:
  --now <ISO>         "now" of the ingest (default: now). Files: when their prices are known (an opening
                      price is stamped min(kick-off − 48 h, now), a fixture's closing price is
                      current as of now). Synthetic: the instant splitting results from fixtures.
  --json              print the report as JSON
  --max-skipped <N>   skipped rows listed in the text report, 0..1000000 (default 200; all with --json)
  --no-repredict      do not refresh the served predictions of the matches this ingest changed (by
                      default, once a run is published, new odds or results are re-predicted
                      incrementally and published as a run of kind incremental)

Log lines go to stderr: human lines on a terminal, JSON lines otherwise or with --json.
Exit code 0 on success, 1 when nothing could be read or the database/store failed, 2 on bad usage.`;

interface IngestCommandIo extends CommandIo {
  /** Database, store and registry to ingest into (the running server's, when a command is handed to it). */
  deps?: { db: Database; store: ObjectStore; registry?: ModelRegistry };
}

// Above this many changed matches (a whole season arrived) an ingest does not re-predict them one by
// one: `pipeline run` rebuilds everything and is the right tool.
export const INGEST_REPREDICT_MAX = 2000;

/** `--encoding` as one of the ingest encodings, or a {@link UsageError}; undefined when not given. */
export function encodingOption(raw: string | undefined): IngestEncoding | undefined {
  if (raw !== undefined && !(INGEST_ENCODINGS as readonly string[]).includes(raw))
    throw new UsageError(`--encoding expects one of ${INGEST_ENCODINGS.join(', ')}, got "${raw}"`);
  return raw as IngestEncoding | undefined;
}

function formatReport(report: IngestReport, maxSkipped: number): string {
  const lines = [
    `ingest: ${report.files} file(s), ${report.rowsRead} row(s) read → ${report.inserted} inserted, ` +
      `${report.updated} updated, ${report.unchanged} unchanged, ${report.skipped.length} skipped; ` +
      `odds.parquet: ${report.oddsRows} row(s); ${(report.ms / 1000).toFixed(1)} s`,
    `odds observations: ${report.observationsRead} read, ${report.observations} stored; ` +
      `${report.oddsRejected.length} price set(s) rejected; ${report.conflicts.length} result conflict(s); ` +
      `${report.nearDuplicateTeams.length} near-duplicate team name(s)`,
  ];
  const list = <T>(title: string, items: readonly T[], fmt: (x: T) => string) => {
    if (items.length === 0) return;
    lines.push(title);
    for (const x of items.slice(0, maxSkipped)) lines.push(`  ${fmt(x)}`);
    if (items.length > maxSkipped) lines.push(`  … and ${items.length - maxSkipped} more (--json lists all)`);
  };
  list('skipped rows (file:line reason [code]):', report.skipped, (s) =>
    s.byte === undefined
      ? `${s.file}:${s.line} ${s.reason} [${s.code}]`
      : `${s.file}:${s.line} (byte ${s.byte}) ${s.reason} [${s.code}]`,
  );
  list(
    'result conflicts (file:line match: old → new):',
    report.conflicts,
    (c) =>
      `${c.file}:${c.line} match ${c.match_id}: ${c.old} → ${c.new} ${c.applied ? '(applied: --force)' : '(refused; --force applies it)'}`,
  );
  list(
    'rejected prices (file:line market kind: reason):',
    report.oddsRejected,
    (r) => `${r.file}:${r.line} ${r.market} ${r.kind}: ${r.reason}`,
  );
  list(
    'near-duplicate team names (kept apart; fix the source if they are one team):',
    report.nearDuplicateTeams,
    (d) => `${d.region}: "${d.names[0]}" ~ "${d.names[1]}" (${d.reason})`,
  );
  return `${lines.join('\n')}\n`;
}

/** What to ingest and how to report it, or null for --help. */
function parseIngestArgs(argv: string[]) {
  const { values } = parseCliArgs(argv, {
    strings: ['source', 'seed', 'now', 'regions', 'teams', 'seasons', 'encoding', 'max-skipped'],
    booleans: ['synthetic', 'json', 'force', 'no-repredict'],
  });
  if (values.help) return null;
  if ((values.source === undefined) === !values.synthetic) {
    throw new UsageError('give exactly one of --source <path> or --synthetic');
  }
  let synthetic: Parameters<typeof ingestSynthetic>[0] | undefined;
  let sourceOptions: IngestOptions = {};
  if (values.synthetic) {
    const int = (name: 'seed' | 'regions' | 'teams' | 'seasons', [min, max]: readonly [number, number]) =>
      intOption(name, values[name], min, max);
    synthetic = {
      seed: int('seed', [-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER]),
      now: dateOption('now', values.now),
      regions: int('regions', SYNTHETIC.regions),
      teamsPerRegion: int('teams', SYNTHETIC.teams),
      seasons: int('seasons', SYNTHETIC.seasons),
    };
  } else if ([values.seed, values.regions, values.teams, values.seasons].some((v) => v !== undefined)) {
    throw new UsageError('--seed, --regions, --teams and --seasons go with --synthetic');
  } else {
    const encoding = encodingOption(values.encoding);
    sourceOptions = { force: values.force === true, encoding, now: dateOption('now', values.now) };
  }
  if (values.synthetic && (values.force || values.encoding !== undefined))
    throw new UsageError('--force and --encoding go with --source');
  const maxSkipped = intOption('max-skipped', values['max-skipped'], 0, 1_000_000) ?? 200;
  return { values, synthetic, sourceOptions, maxSkipped };
}

/** `matchcast ingest`: loads CSVs or the synthetic league into the DB and `raw-data/odds.parquet`. */
export async function ingestCommand(argv: string[], io: IngestCommandIo = {}): Promise<number> {
  const { out, err } = writersOf(io);
  const parsed = parseOrUsage(() => parseIngestArgs(argv), err, USAGE);
  if (parsed === undefined) return 2;
  if (parsed === null) return showHelp(USAGE, out);
  const { values, synthetic, sourceOptions, maxSkipped } = parsed;

  const config = configOf(io, err);
  if (!config) return 1;
  // Log lines go to stderr, stdout carrying only the report; JSON lines in a server's job (no terminal).
  const json = io.deps !== undefined || values.json === true;
  const { log } = commandOutput({ name: 'matchcast-ingest', level: config.logLevel, json, jsonTo: 'stderr' });
  // In a process of its own: 131k matches peak at ~260 MB instead of ~310 (docs/benchmarks.md).
  if (!io.deps) useLeanHeap();
  const store = io.deps?.store ?? createObjectStore(config, log);
  let db: Database | undefined;
  try {
    // A wrong path is reported before the database is opened (creating an embedded one takes seconds).
    if (!synthetic) await listCsvFiles(values.source!);
    db = io.deps?.db ?? (await openDatabase(config));
    const deps = { db, store, log };
    const report = synthetic
      ? await ingestSynthetic(synthetic, deps)
      : await ingestPath(values.source!, deps, sourceOptions);
    const { changedMatchIds, ...printed } = report;
    out(
      values.json
        ? `${JSON.stringify({ ...printed, changedMatches: changedMatchIds.length }, null, 2)}\n`
        : formatReport(report, maxSkipped),
    );
    if (report.rowsRead === 0) {
      err('ingest: nothing could be read\n');
      return 1;
    }
    // What this ingest changed, plus what an earlier one killed mid-way never got to re-predict.
    const waiting = values['no-repredict'] ? [] : await new PendingRepredictions(db).ids();
    if (waiting.length > 0) {
      const say = values.json ? err : out;
      const asOf = (synthetic ? synthetic.now : sourceOptions.now) ?? new Date();
      if (waiting.length > INGEST_REPREDICT_MAX) {
        say(
          `predictions: ${waiting.length} matches changed (more than ${INGEST_REPREDICT_MAX}); not re-predicted one by one — run \`matchcast pipeline run\`\n`,
        );
      } else {
        const registry = io.deps?.registry ?? createRegistry({ db, store }, config);
        try {
          const re = await repredictMatches({ config, db, store, registry, log }, waiting, {
            asOf,
            actor: 'ingest',
          });
          say(
            re.published
              ? `predictions: ${re.repredicted} re-predicted, ${re.updated} updated as of ${asOf.toISOString()}; run ${re.run_id} published (${re.ms} ms)\n`
              : `predictions: not refreshed (${re.reason ?? 'nothing changed'})\n`,
          );
        } catch (e) {
          // The data is in; only the refresh failed: the next `pipeline run` (or ingest) catches up.
          err(
            `predictions: re-prediction failed, the data is ingested (run \`matchcast pipeline run\`): ${failureText(e)}\n`,
          );
        }
      }
    }
    return 0;
  } catch (e) {
    err(`ingest failed: ${failureText(e)}\n`);
    return 1;
  } finally {
    if (!io.deps) {
      await db?.close().catch(() => undefined);
      await store.close().catch(() => undefined);
    }
  }
}
