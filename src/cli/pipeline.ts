import { loadEnv, parseConfig } from '../config.js';
import { MatchesRepository } from '../db/index.js';
import { isMatchcastError, MatchcastError } from '../domain/index.js';
import { ingestPath } from '../ingest/index.js';
import { DEFAULT_FAMILY, isModelFamilyName, MODEL_FAMILY_NAMES } from '../model/index.js';
import {
  type AnalyticsStages,
  defaultAnalyticsStages,
  openPipelineDeps,
  type PipelineDeps,
  readFeatureRows,
  runBacktestStage,
  runFallbackStage,
  runFeaturesStage,
  runGoalsStage,
  runPipeline,
  runPredictStage,
  runPromoteStage,
  runTrainStage,
  STAGE_NAMES,
} from '../pipeline/index.js';
import { openDraftRun, type RunWriter } from '../runs/index.js';
import { type CommandIo, writersOf } from './command-io.js';
import { PIPELINE_CHILD_ENV, superviseRun } from './pipeline-child.js';
import { formatStageResult, nothingProduced, stageLogFigures } from './stage-output.js';
import { commandOutput } from './terminal.js';
import {
  DATE_OPTION_YEARS,
  dateOption,
  intOption,
  parseCliArgs,
  parseOrUsage,
  showHelp,
  UsageError,
} from './usage-error.js';

/** Bounds of the day-count options. */
const DAYS = { min: 1, max: 3650 } as const;

const USAGE = `Usage: matchcast pipeline <stage> [options]

Stages: features | train | promote | backtest | fallback | goals | predict | simulate | drift | performance | run
  run = (ingest when --source is given) → features → train → promote → backtest → fallback (market-free model
        for matches without odds) → goals → predict → simulate → drift → performance (realised figures of what was served, docs/monitoring.md)

Every stage:
  --as-of <ISO>         "now" for the whole run: later matches are future, their results ignored
                        (default: now; years ${DATE_OPTION_YEARS.join('..')})
  --json                print the stage result as one JSON document on stdout (logs and progress: JSON
                        lines on stderr)
  --run <id>            stand-alone stages: continue this draft run (default: the newest open draft, else a new one)

train, backtest, run:
  --family <name>       ${MODEL_FAMILY_NAMES.map((f) => (f === DEFAULT_FAMILY ? `${f} (default)` : f)).join(' | ')}
train, fallback:
  --validation-days N   validation window ending at as-of, ${DAYS.min}..${DAYS.max} (default 365)
backtest, fallback, goals, run:
  --from <date>         walk-forward start (default: 730 days before the last known result)
  --to <date>           walk-forward end, exclusive (default: as-of)
  --refit-days N        refit interval, ${DAYS.min}..${DAYS.max} (default 90)
run:
  --source <path>       ingest this CSV file or folder first
  --force               publish even if a validation gate fails (recorded in the run)

A run publishes (switches what the API and workers serve) only after its gates pass: exit code 3
when a gate failed (nothing published). Stand-alone stages write a draft run that is never served
until \`matchcast runs publish <id>\` (docs/pipeline.md); one that produces nothing (an empty
database, an empty window) exits 1 with MC_ERR_VALIDATION.

Output: on a terminal, progress bars and the stage's figures (metrics included); otherwise JSON log
lines, the last one with the figures (the whole result is in the run record and in --json).`;

/** The stages each option belongs to (options of every stage are not listed). */
const OPTION_STAGES: Record<string, readonly string[]> = {
  family: ['train', 'backtest', 'run'],
  'validation-days': ['train', 'fallback'],
  from: ['backtest', 'fallback', 'goals', 'run'],
  to: ['backtest', 'fallback', 'goals', 'run'],
  'refit-days': ['backtest', 'fallback', 'goals', 'run'],
  source: ['run'],
  force: ['run'],
};

export interface PipelineCommandIo extends CommandIo {
  deps?: PipelineDeps;
  /** Default {@link defaultAnalyticsStages}. */
  analytics?: AnalyticsStages;
}

/** Drops in-memory row arrays from a result before printing it. */
function printable(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, (k, v) =>
      Array.isArray(v) && ['featureRows', 'predictionRows', 'backtestRows', 'matches'].includes(k)
        ? `[${v.length} rows]`
        : v,
    ),
  );
}

/** The stage and its options, or null for --help; throws on a bad command line. */
function parsePipelineArgs(argv: string[]) {
  const { values: v, positionals } = parseCliArgs(argv, {
    strings: ['as-of', 'family', 'validation-days', 'from', 'to', 'refit-days', 'source', 'run'],
    booleans: ['json', 'force'],
    positionals: true,
  });
  const [stage, ...extra] = positionals;
  if (v.help) return null;
  if (!stage || extra.length > 0 || !([...STAGE_NAMES, 'run'] as string[]).includes(stage))
    throw new UsageError(stage ? `unknown stage "${[stage, ...extra].join(' ')}"` : 'missing stage');
  for (const [option, stages] of Object.entries(OPTION_STAGES)) {
    const given = v[option as keyof typeof v];
    if (given !== undefined && given !== false && !stages.includes(stage))
      throw new UsageError(
        `--${option} is an option of ${stages.map((s) => `\`pipeline ${s}\``).join(', ')}${option === 'source' ? ' (or use `matchcast ingest`)' : ''}`,
      );
  }
  if (v.family !== undefined && !isModelFamilyName(v.family))
    throw new UsageError(`--family must be one of ${MODEL_FAMILY_NAMES.join(', ')}`);
  return {
    v,
    stage,
    asOf: dateOption('as-of', v['as-of']) ?? new Date(),
    family: v.family,
    validationDays: intOption('validation-days', v['validation-days'], DAYS.min, DAYS.max),
    // The walk-forward window of backtest, fallback, goals and run.
    window: {
      from: dateOption('from', v.from),
      to: dateOption('to', v.to),
      refitDays: intOption('refit-days', v['refit-days'], DAYS.min, DAYS.max),
    },
  };
}

/** `matchcast pipeline <stage> …` — returns the exit code (0 ok, 1 failure, 2 usage error, 3 a gate failed). */
export async function pipelineCommand(argv: string[], io: PipelineCommandIo = {}): Promise<number> {
  const { out, err } = writersOf(io);
  const parsed = parseOrUsage(() => parsePipelineArgs(argv), err, USAGE);
  if (parsed === undefined) return 2;
  if (parsed === null) return showHelp(USAGE, out);
  const { v, stage, asOf, family, validationDays, window } = parsed;

  const config = io.config ?? parseConfig(loadEnv());
  // A full run from the command line (or a worker's schedule) runs in a child that a signal stops at once.
  if (stage === 'run' && !io.deps && !io.config && process.env[PIPELINE_CHILD_ENV] !== '1')
    return superviseRun(['pipeline', ...argv], config, err);
  // Human lines and bars on a terminal; JSON lines otherwise (on stderr when stdout carries --json).
  const output = io.deps
    ? null
    : commandOutput({
        name: 'matchcast',
        level: config.logLevel,
        json: v.json === true,
        jsonTo: v.json ? 'stderr' : 'stdout',
      });
  let opened: Awaited<ReturnType<typeof openPipelineDeps>> | undefined;
  let draft: RunWriter | null = null;
  try {
    if (!io.deps) opened = await openPipelineDeps(config, { log: output?.log, progress: output?.progress });
    let deps: PipelineDeps = io.deps ?? opened!;
    // Stand-alone stages (all but run and the registry-only promote) write into a draft run.
    const standalone = stage !== 'run' && stage !== 'promote';
    const started = performance.now();
    if (standalone) {
      // What the rows gate of a full run refuses, refused before a draft run is opened.
      if ((await new MatchesRepository(deps.db).count()) === 0)
        throw new MatchcastError(
          'MC_ERR_VALIDATION',
          'the database has no match (empty or wrong database? check DATABASE_URL, or ingest data first)',
        );
      draft = await openDraftRun(deps, { runId: v.run, asOf, log: deps.log });
      deps = { ...deps, store: draft.store, run: draft };
    }
    const analytics = async () => io.analytics ?? (await defaultAnalyticsStages());
    const analyticsStage = async (name: 'simulate' | 'drift' | 'performance') => {
      const fn = (await analytics())[name];
      if (!fn) throw new MatchcastError('MC_ERR_INTERNAL', `pipeline ${name} is not available in this build`);
      return fn(deps, asOf);
    };
    const stages: Record<string, () => Promise<unknown>> = {
      features: () => runFeaturesStage(deps, asOf),
      train: () => runTrainStage(deps, asOf, { family, validationDays }),
      promote: () => runPromoteStage(deps),
      backtest: () => runBacktestStage(deps, asOf, { ...window, family }),
      fallback: async () => {
        const rows = await readFeatureRows(deps);
        const r = await runFallbackStage(deps, asOf, rows, { ...window, validationDays });
        return {
          version: r.version.version,
          log_loss: r.log_loss,
          folds: r.folds,
          rows: r.backtestRows.length,
        };
      },
      // Walk-forward, `<MODEL_NAME>-goals` version, markets file; null: too few results.
      goals: () => runGoalsStage(deps, asOf, window),
      predict: () => runPredictStage(deps, asOf),
      simulate: () => analyticsStage('simulate'),
      drift: () => analyticsStage('drift'),
      performance: () => analyticsStage('performance'),
      run: async () =>
        runPipeline(deps, asOf, {
          force: v.force === true,
          family,
          backtestFrom: window.from,
          backtestTo: window.to,
          refitDays: window.refitDays,
          analytics: await analytics(),
          ingest: v.source ? () => ingestPath(v.source!, deps) : undefined,
        }),
    };
    const result = await stages[stage]!();
    const empty = standalone ? nothingProduced(stage, result) : null;
    if (empty) throw new MatchcastError('MC_ERR_VALIDATION', `produced nothing: ${empty}`);
    const seconds = (performance.now() - started) / 1000;
    if (draft) {
      await draft.recordStage(stage, Number(seconds.toFixed(3)), {});
      await draft.saveDraft();
      err(
        `pipeline ${stage}: wrote draft run ${draft.runId} (not served); publish it with \`matchcast runs publish ${draft.runId}\`\n`,
      );
    }
    if (v.json) out(`${JSON.stringify(printable(result), null, 2)}\n`);
    else if (output?.human) out(formatStageResult(stage, result, seconds));
    else
      deps.log.info(
        { stage, seconds: Number(seconds.toFixed(3)), ...stageLogFigures(stage, result) },
        `pipeline ${stage} done`,
      );
    if (stage === 'promote' && !v.json) {
      const r = result as { promoted: boolean; reason: string };
      out(`${r.promoted ? 'candidate set' : 'no alias set'}: ${r.reason}\n`);
    }
    return 0;
  } catch (e) {
    if (isMatchcastError(e)) {
      err(`matchcast pipeline ${stage}: ${e.message} [${e.code}]\n`);
      if (draft) err(`(draft run ${draft.runId} was not updated; nothing served changed)\n`);
      return e.code === 'MC_ERR_GATE_FAILED' ? 3 : 1;
    }
    throw e;
  } finally {
    await opened?.close();
  }
}
