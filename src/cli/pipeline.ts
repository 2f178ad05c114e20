import { parseArgs } from 'node:util';
import pino from 'pino';
import { type Config, loadEnv, parseConfig } from '../config.js';
import { isMatchcastError, MatchcastError } from '../domain/index.js';
import { ingestPath } from '../ingest/index.js';
import { REDACT_PATHS } from '../logger.js';
import { DEFAULT_FAMILY, MODEL_FAMILY_NAMES } from '../model/index.js';
import {
  type AnalyticsStages,
  defaultAnalyticsStages,
  openPipelineDeps,
  type PipelineDeps,
  parseFamily,
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
import { handOffConfig } from './admin-key.js';
import { handOffToServer } from './handoff.js';
import { dateOption, positiveIntOption, UsageError } from './usage-error.js';

const USAGE = `Usage: matchcast pipeline <stage> [options]

Stages: features | train | promote | backtest | fallback | goals | predict | simulate | drift | performance | run
  run = (ingest when --source is given) → features → train → promote → backtest → fallback (market-free model
        for matches without odds) → goals → predict → simulate → drift → performance (realised figures of what was served, docs/monitoring.md)

Options:
  --as-of <ISO>         "now" for the whole run: later matches are future, their results ignored (default: now)
  --family <name>       ${MODEL_FAMILY_NAMES.map((f) => (f === DEFAULT_FAMILY ? `${f} (default)` : f)).join(' | ')}
  --validation-days N   validation window of train, ending at as-of (default 365)
  --from <date>         backtest/goals start (default: 730 days before the last known result)
  --to <date>           backtest/goals end, exclusive (default: as-of)
  --refit-days N        backtest/goals refit interval (default 90)
  --source <path>       run only: ingest this CSV file or folder first
  --json                print the stage result as one JSON document on stdout
  --force               run only: publish even if a validation gate fails (recorded in the run)
  --run <id>            stand-alone stages: continue this draft run (default: the newest open draft, else a new one)

A run publishes (switches what the API and workers serve) only after its gates pass: exit code 3
when a gate failed (nothing published). Stand-alone stages write a draft run that is never served
until \`matchcast runs publish <id>\` (docs/pipeline.md).

Progress: bars on a terminal (stderr), one JSON log line per step otherwise.`;

/** Test seams of {@link pipelineCommand}. */
export interface PipelineCommandIo {
  /** Default `process.stdout.write`. */
  out?: (text: string) => void;
  /** Default `process.stderr.write`. */
  err?: (text: string) => void;
  /** Default `parseConfig(loadEnv())`. */
  config?: Config;
  /** Default opened from `config` (and closed at the end). */
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

/** The scalar fields of a stage result (nested ones one level deep) as `key=value` pairs. */
function summaryLine(result: unknown): string {
  const parts: string[] = [];
  const walk = (obj: Record<string, unknown>, prefix: string, depth: number) => {
    for (const [k, v] of Object.entries(obj)) {
      if (Array.isArray(v)) continue;
      if (typeof v === 'number') parts.push(`${prefix}${k}=${Number.isInteger(v) ? v : v.toFixed(4)}`);
      else if (typeof v === 'string' || typeof v === 'boolean') parts.push(`${prefix}${k}=${v}`);
      else if (v && typeof v === 'object' && !Array.isArray(v) && depth < 1 && k !== 'metrics') {
        walk(v as Record<string, unknown>, `${k}.`, depth + 1);
      }
    }
  };
  if (result && typeof result === 'object') walk(result as Record<string, unknown>, '', 0);
  return parts.join(' ');
}

/** `matchcast pipeline <stage> …` — returns the exit code (0 ok, 1 failure, 2 usage error, 3 a gate failed). */
export async function pipelineCommand(argv: string[], io: PipelineCommandIo = {}): Promise<number> {
  const out = io.out ?? ((t: string) => void process.stdout.write(t));
  const err = io.err ?? ((t: string) => void process.stderr.write(t));
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        'as-of': { type: 'string' },
        family: { type: 'string' },
        'validation-days': { type: 'string' },
        from: { type: 'string' },
        to: { type: 'string' },
        'refit-days': { type: 'string' },
        source: { type: 'string' },
        json: { type: 'boolean', default: false },
        force: { type: 'boolean', default: false },
        run: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (e) {
    err(`${(e as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  const v = parsed.values as Record<string, string | boolean | undefined>;
  const [stage, ...extra] = parsed.positionals;
  if (v.help) {
    out(`${USAGE}\n`);
    return 0;
  }
  if (!stage || extra.length > 0 || !([...STAGE_NAMES, 'run'] as string[]).includes(stage)) {
    err(`${stage ? `unknown stage "${[stage, ...extra].join(' ')}"` : 'missing stage'}\n\n${USAGE}\n`);
    return 2;
  }
  let options: {
    asOf: Date;
    family: ReturnType<typeof parseFamily>;
    validationDays?: number;
    from?: Date;
    to?: Date;
    refitDays?: number;
    source?: string;
  };
  try {
    if (v.source !== undefined && stage !== 'run') {
      throw new MatchcastError(
        'MC_ERR_VALIDATION',
        '--source is an option of `pipeline run` (or use `matchcast ingest`)',
      );
    }
    options = {
      asOf: dateOption('as-of', v['as-of'] as string | undefined) ?? new Date(),
      family: parseFamily(v.family as string | undefined),
      validationDays: positiveIntOption('validation-days', v['validation-days'] as string | undefined),
      from: dateOption('from', v.from as string | undefined),
      to: dateOption('to', v.to as string | undefined),
      refitDays: positiveIntOption('refit-days', v['refit-days'] as string | undefined),
      source: v.source as string | undefined,
    };
  } catch (e) {
    if (isMatchcastError(e) || e instanceof UsageError) {
      err(`matchcast pipeline: ${e.message}\n\n${USAGE}\n`);
      return 2;
    }
    throw e;
  }

  const config = io.config ?? parseConfig(loadEnv());
  if (!io.deps) {
    // `matchcast start` holds the embedded database: the job runs inside it.
    const code = await handOffToServer(await handOffConfig(config), 'pipeline', argv, { out, err });
    if (code !== null) return code;
  }
  let deps: PipelineDeps & { close?: () => Promise<void> };
  try {
    // Logs go to stderr when stdout carries the --json document.
    const log = v.json
      ? pino(
          {
            name: 'matchcast',
            level: config.logLevel,
            redact: { paths: REDACT_PATHS, censor: '[redacted]' },
          },
          pino.destination(2),
        )
      : undefined;
    deps = io.deps ?? (await openPipelineDeps(config, { log }));
  } catch (e) {
    if (isMatchcastError(e)) {
      err(`matchcast pipeline ${stage}: ${e.message} [${e.code}]\n`);
      return 1;
    }
    throw e;
  }
  const { asOf } = options;
  // Stand-alone stages (all but run and the registry-only promote) write into a draft run.
  let draft: RunWriter | null = null;
  try {
    const started = performance.now();
    if (stage !== 'run' && stage !== 'promote') {
      draft = await openDraftRun(deps.store, {
        runId: v.run as string | undefined,
        asOf,
        log: deps.log,
      });
      deps = { ...deps, store: draft.store, run: draft };
    }
    let result: unknown;
    const analytics = async () => io.analytics ?? (await defaultAnalyticsStages());
    switch (stage) {
      case 'features':
        result = await runFeaturesStage(deps, asOf);
        break;
      case 'train':
        result = await runTrainStage(deps, asOf, {
          family: options.family,
          validationDays: options.validationDays,
        });
        break;
      case 'promote':
        result = await runPromoteStage(deps);
        break;
      case 'backtest':
        result = await runBacktestStage(deps, asOf, {
          from: options.from,
          to: options.to,
          refitDays: options.refitDays,
          family: options.family,
        });
        break;
      case 'fallback': {
        const r = await runFallbackStage(deps, asOf, await readFeatureRows(deps.store), {
          from: options.from,
          to: options.to,
          refitDays: options.refitDays,
          validationDays: options.validationDays,
        });
        result = {
          version: r.version.version,
          log_loss: r.log_loss,
          folds: r.folds,
          rows: r.backtestRows.length,
        };
        break;
      }
      case 'goals':
        // Goals model (issue 16): walk-forward, `<MODEL_NAME>-goals` version, markets file (null: too few results).
        result = (await runGoalsStage(deps, asOf, {
          from: options.from,
          to: options.to,
          refitDays: options.refitDays,
        })) ?? { skipped: true, reason: 'too few finished matches to fit the goals model' };
        break;
      case 'predict':
        result = await runPredictStage(deps, asOf);
        break;
      case 'simulate':
      case 'drift':
      case 'performance': {
        const fn = (await analytics())[stage];
        if (!fn)
          throw new MatchcastError('MC_ERR_INTERNAL', `pipeline ${stage} is not available in this build`);
        result = await fn(deps, asOf);
        break;
      }
      case 'run':
        result = await runPipeline(deps, asOf, {
          force: v.force === true,
          family: options.family,
          backtestFrom: options.from,
          backtestTo: options.to,
          refitDays: options.refitDays,
          analytics: await analytics(),
          ingest: options.source ? () => ingestPath(options.source!, deps) : undefined,
        });
        break;
    }
    const seconds = (performance.now() - started) / 1000;
    if (draft) {
      await draft.recordStage(stage, Number(seconds.toFixed(3)), {});
      await draft.saveDraft();
      err(
        `pipeline ${stage}: wrote draft run ${draft.runId} (not served); publish it with \`matchcast runs publish ${draft.runId}\`\n`,
      );
    }
    if (v.json) out(`${JSON.stringify(printable(result), null, 2)}\n`);
    else if (process.stdout.isTTY)
      out(`pipeline ${stage} done in ${seconds.toFixed(1)} s: ${summaryLine(result)}\n`);
    else
      deps.log.info(
        { stage, seconds: Number(seconds.toFixed(3)), result: printable(result) },
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
      if (draft) err(`(draft run ${draft.runId} keeps what it had; nothing served changed)\n`);
      return e.code === 'MC_ERR_GATE_FAILED' ? 3 : 1;
    }
    throw e;
  } finally {
    if (!io.deps) await deps.close?.();
  }
}
