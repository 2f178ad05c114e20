import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config.js';
import { isMatchcastError, MatchcastError, replayClock } from '../domain/index.js';
import { listCsvFiles } from '../ingest/index.js';
import type { Logger } from '../logger.js';
import { type FeedDelta, ReplayFeed } from '../replay/index.js';
import { openRuntime, type RuntimeContext } from '../runtime.js';
import { SourcesRepository } from '../sources/index.js';
import { serveEmbedded } from './serve-embedded.js';
import type { ServerJobs } from './server-jobs.js';
import { dateOption, numberOption, UsageError } from './usage-error.js';
import { createWorkChild } from './work-child.js';

/** The schedule of the full pipeline during a replay when PIPELINE_SCHEDULE is unset: daily, on the replay clock. */
const REPLAY_DEFAULT_SCHEDULE = '30 4 * * *';

/** The replay's feed as a source of its own database. */
export const REPLAY_SOURCE = 'replay';

/** `start`'s replay options, as {@link replayOptions} checked them; the rest is for tests. */
interface ReplayArgs {
  data: string;
  asOf: Date;
  speed: number;
  /** Wall-clock interval between feed ticks, ms. Default `1000`. */
  tickMs?: number;
  /** Resolves when the server should stop. Default SIGTERM/SIGINT. */
  until?: Promise<unknown>;
  onServing?: (state: ReplayState) => void;
}

/** What a running replay exposes to tests; `ticks`: feed ticks applied after the first load. */
export interface ReplayState {
  ctx: RuntimeContext;
  jobs: ServerJobs;
  feed: ReplayFeed;
  ticks: () => number;
}

/** Writes a delta as CSV files of a fresh folder (a hand-over to ingest). */
async function writeDelta(dir: string, seq: number, delta: FeedDelta): Promise<string> {
  const folder = path.join(dir, String(seq).padStart(6, '0'));
  await mkdir(folder, { recursive: true });
  await Promise.all(
    delta.files.map((text, i) => writeFile(path.join(folder, `${String(i).padStart(4, '0')}.csv`), text)),
  );
  return folder;
}

/** Largest `--speed`, in simulated seconds per real second: faster runs the clock out of `Date`'s range. */
export const REPLAY_MAX_SPEED = 1_000_000;

/** The replay options of `start`, checked before any work. */
export function replayOptions(args: {
  data: string | undefined;
  asOf: string | undefined;
  speed: string | undefined;
}): Pick<ReplayArgs, 'data' | 'asOf' | 'speed'> {
  if (args.asOf === undefined) throw new UsageError('--speed goes with --as-of <date>');
  if (args.data === undefined) throw new UsageError('--as-of needs --data <csv folder>');
  const asOf = dateOption('as-of', args.asOf) as Date;
  const speed = numberOption('speed', args.speed, 0, REPLAY_MAX_SPEED) ?? 1;
  return { data: args.data, asOf, speed };
}

// `start --data <csv folder> --as-of <date> [--speed N]`: the service as if "now" were `date`, its state
// in `<DATA_DIR>/replay` (recreated at each start), the data released as the clock passes it.
export async function replayCommand(config: Config, log: Logger, args: ReplayArgs): Promise<number> {
  let files: string[];
  const { data, asOf, speed, tickMs = 1000 } = args;
  try {
    if (config.databaseUrl !== undefined || config.s3Endpoint !== undefined)
      throw new MatchcastError(
        'MC_ERR_CONFIG',
        'a replay runs on the embedded stack: unset DATABASE_URL and S3_ENDPOINT',
      );
    files = await listCsvFiles(data);
  } catch (err) {
    if (isMatchcastError(err)) {
      process.stderr.write(`matchcast start: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  const feed = await ReplayFeed.load(files);
  const stateDir = path.join(config.dataDir, 'replay');
  await rm(stateDir, { recursive: true, force: true });
  const feedDir = path.join(stateDir, 'feed');
  await mkdir(feedDir, { recursive: true });
  const replayConfig: Config = {
    ...config,
    dataDir: stateDir,
    pipelineSchedule: config.pipelineSchedule ?? REPLAY_DEFAULT_SCHEDULE,
    pipelineSource: undefined,
    // The replay polls its own feed on its ticks; the state folder holds no other source.
    sourcePolling: false,
  };
  const ctx = await openRuntime(replayConfig, log, { role: 'embedded' });
  const first = feed.advance(asOf);
  // The first load and pipeline run go to a child process: their memory leaves with it.
  const boot = createWorkChild(replayConfig, log, { logLevel: config.logLevel });
  try {
    const folder = first ? await writeDelta(feedDir, 0, first) : undefined;
    log.info('replay: loading the data up to as-of and running the pipeline as of the replay start');
    const { inserted } = await boot.bootstrap({ folder, asOf: asOf.toISOString() });
    log.info(
      { as_of: asOf.toISOString(), rows: first?.rows ?? 0, inserted },
      'replay: data up to as-of loaded, first run published',
    );
    if (folder) await rm(folder, { recursive: true, force: true });
  } finally {
    await boot.close();
  }
  await ctx.startEmbeddedWorker?.();

  const clock = replayClock({ start: asOf, speed });
  let ticks = 0;
  // The feed is a source like any other (docs/sources.md): each release is polled in the work child
  // with the release as its body.
  await new SourcesRepository(ctx.db).add({
    name: REPLAY_SOURCE,
    url: `replay:${data}`,
    format: 'release-csv',
    everyMs: tickMs,
    options: { acceptNewTeams: true },
  });
  const background = (jobs: ServerJobs) => {
    let pending = false;
    const timer = setInterval(() => {
      if (pending) return;
      pending = true;
      (async () => {
        const now = clock.now();
        const delta = feed.advance(now);
        if (!delta) return;
        const { outcome: polled, repredict: re } = await jobs.poll({
          name: REPLAY_SOURCE,
          now: now.toISOString(),
          body: delta.csv,
        });
        const { report } = polled;
        ticks++;
        if (polled.status === 'failed') {
          log.error(
            { code: polled.code, now: now.toISOString() },
            `replay: release failed: ${polled.message}`,
          );
          return;
        }
        log.info(
          {
            now: now.toISOString(),
            fixtures: delta.fixtures,
            openings: delta.openings,
            closings: delta.closings,
            results: delta.results,
            inserted: report?.inserted ?? 0,
            updated: report?.updated ?? 0,
            repredicted: re?.repredicted ?? 0,
            results_updated: re?.updated ?? 0,
            run_id: re?.run_id ?? null,
            repredict_ms: re?.ms ?? 0,
          },
          'replay: released',
        );
      })()
        .catch((err: unknown) => log.error({ err }, 'replay tick failed'))
        .finally(() => {
          pending = false;
        });
    }, tickMs);
    timer.unref();
    args.onServing?.({ ctx, jobs, feed, ticks: () => ticks });
    return () => clearInterval(timer);
  };
  return serveEmbedded(ctx, {
    clock,
    recordDir: config.dataDir,
    replay: { as_of: asOf.toISOString(), speed },
    background,
    until: args.until,
    banner: (url) =>
      [
        '',
        `  matchcast replay from ${asOf.toISOString()} at ${speed}× — running at ${url}`,
        `  UI:   ${url}/ui/      docs: ${url}/docs`,
        `  API key (X-API-Key): ${config.apiKey}`,
        `  clock: curl ${url}/healthcheck/   fixtures: curl ${url}/livescores/`,
        '',
      ].join('\n'),
  });
}
