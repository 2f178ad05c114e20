import { parseArgs } from 'node:util';
import pino from 'pino';
import { type Config, loadEnv, parseConfig } from '../config.js';
import { openDatabase } from '../db/index.js';
import { isMatchcastError } from '../domain/index.js';
import { type IngestReport, ingestPath, ingestSynthetic, listCsvFiles } from '../ingest/index.js';
import { REDACT_PATHS } from '../logger.js';
import { createObjectStore } from '../storage/index.js';

const USAGE = `Usage: matchcast ingest --source <path> | --synthetic [options]

  --source <path>     a CSV file or a folder of CSVs: the shared football layout (Date, country, league,
                      Season, HomeTeam, AwayTeam, FTHG, FTAG, home_open … away_close) or the
                      football-data.co.uk layout (Div, Date, Time, HomeTeam, AwayTeam, FTHG, FTAG, FTR, odds)
  --synthetic         generate and load a deterministic synthetic multi-region league
    --seed <N>        PRNG seed (default 42)
    --now <ISO>       the instant splitting results from fixtures (default: now)
    --regions <N>     regions (default 4)
    --teams <N>       teams per region (default: 12–16 drawn per region)
    --seasons <N>     seasons per region (default 4)
  --json              print the report as JSON
  --max-skipped <N>   skipped rows listed in the text report (default 200; all with --json)

Exit code 0 on success, 1 when nothing could be read or the database/store failed, 2 on bad usage.`;

/** Test seams of {@link ingestCommand}. */
export interface IngestCommandIo {
  /** Default `process.stdout.write`. */
  out?: (text: string) => void;
  /** Default `process.stderr.write`. */
  err?: (text: string) => void;
  /** Default `parseConfig(loadEnv())`. */
  config?: Config;
}

class UsageError extends Error {}

function positiveInt(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < 1)
    throw new UsageError(`--${name} expects a positive integer, got "${raw}"`);
  return Number(raw);
}

function parseNow(raw: string | undefined): Date | undefined {
  if (raw === undefined) return undefined;
  const iso = /^\d{4}-\d\d-\d\d$/.test(raw)
    ? `${raw}T00:00:00Z`
    : /[zZ]|[+-]\d\d:?\d\d$/.test(raw)
      ? raw
      : `${raw}Z`;
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) throw new UsageError(`--now expects an ISO date-time, got "${raw}"`);
  return d;
}

/** The human-readable report. */
export function formatReport(report: IngestReport, maxSkipped = 200): string {
  const lines = [
    `ingest: ${report.files} file(s), ${report.rowsRead} row(s) read → ${report.inserted} inserted, ` +
      `${report.updated} updated, ${report.unchanged} unchanged, ${report.skipped.length} skipped; ` +
      `odds.parquet: ${report.oddsRows} row(s); ${(report.ms / 1000).toFixed(1)} s`,
  ];
  if (report.skipped.length > 0) {
    lines.push('skipped rows (file:line reason):');
    for (const s of report.skipped.slice(0, maxSkipped)) lines.push(`  ${s.file}:${s.line} ${s.reason}`);
    if (report.skipped.length > maxSkipped)
      lines.push(`  … and ${report.skipped.length - maxSkipped} more (--json lists all)`);
  }
  return `${lines.join('\n')}\n`;
}

/** `matchcast ingest`: loads CSVs or the synthetic league into the DB and `raw-data/odds.parquet`. */
export async function ingestCommand(argv: string[], io: IngestCommandIo = {}): Promise<number> {
  const out = io.out ?? ((t: string) => void process.stdout.write(t));
  const err = io.err ?? ((t: string) => void process.stderr.write(t));
  let values: Record<string, string | boolean | undefined>;
  let synthetic: Parameters<typeof ingestSynthetic>[0] | undefined;
  let maxSkipped: number;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        source: { type: 'string' },
        synthetic: { type: 'boolean' },
        seed: { type: 'string' },
        now: { type: 'string' },
        regions: { type: 'string' },
        teams: { type: 'string' },
        seasons: { type: 'string' },
        json: { type: 'boolean' },
        'max-skipped': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
    if (values.help) {
      out(`${USAGE}\n`);
      return 0;
    }
    if ((values.source === undefined) === !values.synthetic) {
      throw new UsageError('give exactly one of --source <path> or --synthetic');
    }
    if (values.synthetic) {
      const seed = values.seed as string | undefined;
      if (seed !== undefined && !/^-?\d+$/.test(seed))
        throw new UsageError(`--seed expects an integer, got "${seed}"`);
      synthetic = {
        seed: seed === undefined ? undefined : Number(seed),
        now: parseNow(values.now as string | undefined),
        regions: positiveInt('regions', values.regions as string | undefined),
        teamsPerRegion: positiveInt('teams', values.teams as string | undefined),
        seasons: positiveInt('seasons', values.seasons as string | undefined),
      };
    } else if (['seed', 'now', 'regions', 'teams', 'seasons'].some((k) => values[k] !== undefined)) {
      throw new UsageError('--seed, --now, --regions, --teams and --seasons go with --synthetic');
    }
    maxSkipped = positiveInt('max-skipped', values['max-skipped'] as string | undefined) ?? 200;
  } catch (e) {
    err(`${(e as Error).message}\n\n${USAGE}\n`);
    return 2;
  }

  let config: Config;
  try {
    config = io.config ?? parseConfig(loadEnv());
  } catch (e) {
    err(`${(e as Error).message}\n`);
    return 1;
  }
  // Progress goes to stderr so that stdout carries only the report (e.g. with --json).
  const log = pino(
    {
      name: 'matchcast-ingest',
      level: config.logLevel,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    },
    pino.destination(2),
  );
  const store = createObjectStore(config, log);
  let db: Awaited<ReturnType<typeof openDatabase>> | undefined;
  try {
    // A wrong path is reported before the database is opened (creating an embedded one takes seconds).
    if (!synthetic) await listCsvFiles(values.source as string);
    db = await openDatabase(config);
    const deps = { db, store, log };
    const report = synthetic
      ? await ingestSynthetic(synthetic, deps)
      : await ingestPath(values.source as string, deps);
    out(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report, maxSkipped));
    if (report.rowsRead === 0) {
      err('ingest: nothing could be read\n');
      return 1;
    }
    return 0;
  } catch (e) {
    err(
      `ingest failed: ${isMatchcastError(e) ? `${e.code}: ${e.message}` : ((e as Error).stack ?? String(e))}\n`,
    );
    return 1;
  } finally {
    await db?.close().catch(() => undefined);
    await store.close().catch(() => undefined);
  }
}
