import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { FeatureRow } from '../features/index.js';
import { DEFAULT_FAMILY, MODEL_FAMILY_NAMES, type ModelFamilyName } from '../model/index.js';
import { readPublished, servedRef } from '../runs/index.js';
import type { PipelineDeps } from './deps.js';
import { type RunOptions, type RunResult, runPipeline } from './run.js';
import { runTrainStage, type TrainResult } from './stage-train.js';

export const FIRST_START_ACTOR = 'matchcast-start';

/** `<DATA_DIR>/first-start.json`: written once the whole first-start bootstrap has finished. */
const FIRST_START_MARKER = 'first-start.json';

export function firstStartDone(dataDir: string): boolean {
  return existsSync(path.join(dataDir, FIRST_START_MARKER));
}

export interface BootstrapResult {
  /** False when the first start had already finished: nothing was done. */
  ran: boolean;
  /** What a resumed first start still had to do (empty on a fresh one). */
  resumed?: string[];
  run: RunResult | null;
  champion: string | null;
  challenger: TrainResult | null;
}

/** Of the first start's two models, the one with the lower validation log loss serves as champion. */
async function keepBetterAsChampion(deps: PipelineDeps, challenger: TrainResult): Promise<void> {
  const champion = await deps.registry.resolve('champion');
  const a = champion?.metrics.log_loss;
  const b = challenger.version.metrics.log_loss;
  if (!champion || a === undefined || b === undefined || !(b < a)) return;
  const why = `first start: validation log loss ${b.toFixed(4)} against ${a.toFixed(4)}`;
  await deps.registry.setAlias('champion', challenger.version.version, FIRST_START_ACTOR, why);
  await deps.registry.setAlias('challenger', champion.version, FIRST_START_ACTOR, why);
}

/** Trains a model of `family` on the same window and sets it as `challenger`. */
async function trainChallenger(
  deps: PipelineDeps,
  asOf: Date,
  family: ModelFamilyName,
  why: string,
  featureRows?: FeatureRow[],
): Promise<TrainResult> {
  const challenger = await runTrainStage(deps, asOf, { family, featureRows });
  await deps.registry.setAlias('challenger', challenger.version.version, FIRST_START_ACTOR, why);
  return challenger;
}

/**
 * First start (`matchcast start`): the pipeline, signing off the first candidate (so predictions are written)
 * and training the other family as `challenger`. Resumable: the marker is written only at the end.
 */
export async function bootstrapFirstRun(
  deps: PipelineDeps,
  asOf: Date = new Date(),
  options: RunOptions = {},
): Promise<BootstrapResult> {
  const dataDir = deps.config.dataDir;
  if (firstStartDone(dataDir)) {
    deps.log.info('first start already finished: bootstrap skipped');
    return { ran: false, run: null, champion: null, challenger: null };
  }
  const family: ModelFamilyName = options.family ?? DEFAULT_FAMILY;
  const other = MODEL_FAMILY_NAMES.find((f) => f !== family) ?? family;
  const markDone = () =>
    writeFileSync(
      path.join(dataDir, FIRST_START_MARKER),
      `${JSON.stringify({ finished_at: new Date().toISOString() }, null, 2)}\n`,
    );
  const [hasChampion, hasChallenger] = await Promise.all([
    deps.registry.resolve('champion'),
    deps.registry.resolve('challenger'),
  ]);
  if (hasChampion) {
    // An interrupted first start (or an install from before the marker): finish what is missing.
    const resumed: string[] = [];
    let challenger: TrainResult | null = null;
    if (!hasChallenger) {
      resumed.push('challenger');
      challenger = await trainChallenger(deps, asOf, other, `first start (resumed): ${other} as challenger`);
    }
    let run: RunResult | null = null;
    // The served predictions (through the published-run pointer, src/runs): none = the pipeline never got there.
    const published = await readPublished(deps.db).catch(() => null);
    const ref = servedRef(published, 'predictions');
    const predictions = ref ? await deps.store.head(ref.bucket, ref.key).catch(() => null) : null;
    if (!predictions) {
      resumed.push('pipeline');
      run = await runPipeline(deps, asOf, { ...options, family });
    }
    deps.log.info({ resumed }, resumed.length ? 'first start resumed and finished' : 'first start finished');
    markDone();
    return { ran: resumed.length > 0, resumed, run, champion: null, challenger };
  }
  if ((await deps.registry.listVersions()).length > 0)
    deps.log.info('first start was interrupted before the sign-off: running the pipeline again');
  let champion: string | null = null;
  let challenger: TrainResult | null = null;
  const run = await runPipeline(deps, asOf, {
    ...options,
    family,
    afterPromote: async (promote, featureRows, runDeps) => {
      if (promote.promoted) {
        const moved = await deps.registry.promoteCandidate(
          FIRST_START_ACTOR,
          'first start: automatic sign-off',
        );
        champion = moved.to;
      } else if (promote.version !== null && !(await deps.registry.resolve('champion'))) {
        // Too little data to validate: a first start still needs a model to serve (the history says why).
        await deps.registry.setAlias(
          'champion',
          promote.version,
          FIRST_START_ACTOR,
          `first start: signed off without validation (${promote.reason})`,
        );
        champion = promote.version;
      }
      if (!hasChallenger) {
        // Trained inside the run: the version names the run's features (and dies with the run).
        const why = `first start: ${other} as challenger`;
        challenger = await trainChallenger(runDeps ?? deps, asOf, other, why, featureRows);
        await keepBetterAsChampion(deps, challenger);
      }
      await options.afterPromote?.(promote, featureRows);
    },
  });
  markDone();
  return { ran: true, run, champion, challenger };
}
