import type { ModelFamily } from '../model/index.js';
import type { PipelineDeps } from './deps.js';
import { type RunOptions, type RunResult, runPipeline } from './run.js';
import { runTrainStage, type TrainResult } from './stage-train.js';

/** The actor written to the alias history by the first start. */
export const FIRST_START_ACTOR = 'matchcast-start';

export interface BootstrapResult {
  /** False when the registry already had versions: nothing was done. */
  ran: boolean;
  run: RunResult | null;
  champion: string | null;
  challenger: TrainResult | null;
}

/**
 * First start (`matchcast start` with an empty registry): runs the whole pipeline; between promote
 * and predict the first candidate is signed off as champion (actor `matchcast-start`), so that
 * predictions are written; then a second model of the other family is trained on the same features
 * and set as `challenger`, so that a new user sees both stages working. Ingest is the caller's
 * (pass `options.ingest`). Does nothing when a version already exists.
 */
export async function bootstrapFirstRun(
  deps: PipelineDeps,
  asOf: Date = new Date(),
  options: RunOptions = {},
): Promise<BootstrapResult> {
  if ((await deps.registry.listVersions()).length > 0) {
    deps.log.info('registry has versions: first-start bootstrap skipped');
    return { ran: false, run: null, champion: null, challenger: null };
  }
  const family: ModelFamily = options.family ?? 'multinomial_logit';
  const other: ModelFamily = family === 'multinomial_logit' ? 'ordered_logit' : 'multinomial_logit';
  let champion: string | null = null;
  let challenger: TrainResult | null = null;
  const run = await runPipeline(deps, asOf, {
    ...options,
    family,
    afterPromote: async (promote, featureRows) => {
      if (promote.promoted) {
        const moved = await deps.registry.promoteCandidate(
          FIRST_START_ACTOR,
          'first start: automatic sign-off',
        );
        champion = moved.to;
      } else if (promote.version !== null && !(await deps.registry.resolve('champion'))) {
        // Too little data for a validation window (no log loss to compare): a first start still needs
        // a model to serve, so the version is signed off directly and the history says why.
        await deps.registry.setAlias(
          'champion',
          promote.version,
          FIRST_START_ACTOR,
          `first start: signed off without validation (${promote.reason})`,
        );
        champion = promote.version;
      }
      challenger = await runTrainStage(deps, asOf, { family: other, featureRows });
      await deps.registry.setAlias(
        'challenger',
        challenger.version.version,
        FIRST_START_ACTOR,
        `first start: ${other} as challenger`,
      );
      await options.afterPromote?.(promote, featureRows);
    },
  });
  return { ran: true, run, champion, challenger };
}
