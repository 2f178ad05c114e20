import type { Probabilities } from '../domain/index.js';
import { type FeatureRow, toModelInput } from '../features/index.js';
import {
  deserializeModel,
  logLoss,
  type ModelFamily,
  predictProba,
  trainAndValidate,
} from '../model/index.js';
import { decidePromotion, type ModelVersion } from '../registry/index.js';
import { readFeatureRows } from './artifacts.js';
import { type PipelineDeps, progressOf } from './deps.js';

/** Who the automated stage acts as in the alias history. */
export const PROMOTION_ACTOR = 'pipeline-promote';

/** How the champion's log loss on the new version's window was obtained. */
export type ComparisonMethod =
  | 'no-champion'
  | 'same-window'
  | 'rescored-artifact'
  | 'refit-champion-recipe'
  | 'not-comparable';

export interface PromoteResult {
  version: string | null;
  promoted: boolean;
  reason: string;
  new_log_loss: number | null;
  champion_version: string | null;
  champion_log_loss: number | null;
  method: ComparisonMethod | 'nothing-to-do';
}

export interface PromoteOptions {
  featureRows?: FeatureRow[];
  /** Actor written to the alias history. Default {@link PROMOTION_ACTOR}. */
  actor?: string;
}

function windowOf(v: ModelVersion): { from: Date; to: Date } | null {
  const from = v.params.validation_from;
  const to = v.params.validation_to;
  if (!from || !to) return null;
  return { from: new Date(from), to: new Date(to) };
}

/**
 * The champion's validation log loss on the new version's window.
 * - same window: the stored metric;
 * - the champion never trained on that window (its cut-off is at or before the window's start): its
 *   artifact is re-scored on the window's finished matches from the features file;
 * - otherwise re-scoring would be in-sample and flatter the champion, so the champion's recipe
 *   (family, params, feature names) is refit on the data before the window and scored on it, exactly
 *   as the new version was.
 */
async function championOnWindow(
  deps: Pick<PipelineDeps, 'store' | 'registry'>,
  champion: ModelVersion,
  window: { from: Date; to: Date },
  rowsIn: FeatureRow[] | undefined,
): Promise<{ logLoss: number | null; method: ComparisonMethod }> {
  const cw = windowOf(champion);
  if (cw && cw.from.getTime() === window.from.getTime() && cw.to.getTime() === window.to.getTime()) {
    return { logLoss: champion.metrics.log_loss ?? null, method: 'same-window' };
  }
  const rows = rowsIn ?? (await readFeatureRows(deps.store));
  const inWindow = rows.filter(
    (r) => r.label !== null && r.start_time_utc >= window.from && r.start_time_utc < window.to,
  );
  if (inWindow.length === 0) return { logLoss: null, method: 'not-comparable' };
  if (new Date(champion.training_cutoff) <= window.from) {
    const model = deserializeModel((await deps.registry.loadArtifact(champion)).toString('utf8'));
    const probs: Probabilities[] = inWindow.map((r) =>
      predictProba(model, toModelInput(r, champion.feature_names)),
    );
    return {
      logLoss: logLoss(
        probs,
        inWindow.map((r) => r.label as number),
      ),
      method: 'rescored-artifact',
    };
  }
  const days = (window.to.getTime() - window.from.getTime()) / 86_400_000;
  const refit = trainAndValidate(rows, {
    asOf: window.to,
    validationDays: days,
    family: champion.params.family as ModelFamily | undefined,
    params: {
      l2: champion.params.l2 === undefined ? undefined : Number(champion.params.l2),
      missingIndicators:
        champion.params.missingIndicators === undefined
          ? undefined
          : champion.params.missingIndicators === 'true',
    },
    featureNames: champion.feature_names,
  });
  return { logLoss: refit.metrics.log_loss ?? null, method: 'refit-champion-recipe' };
}

/**
 * `pipeline promote`: the newest version gets the `candidate` alias when its validation log loss is at
 * most the champion's (on the same window) + `PROMOTION_TOLERANCE`, or when there is no champion;
 * otherwise it gets no alias and the result says why. Never touches `champion`: that is the
 * operator's sign-off (`matchcast registry promote`).
 */
export async function runPromoteStage(
  deps: Pick<PipelineDeps, 'config' | 'store' | 'registry' | 'log' | 'progress'>,
  options: PromoteOptions = {},
): Promise<PromoteResult> {
  const step = progressOf(deps).step('promote', 'decide', 1);
  const newest = await deps.registry.latestVersion();
  const aliases = await deps.registry.aliases();
  const finish = (r: PromoteResult): PromoteResult => {
    step.done({ ...r });
    return r;
  };
  if (!newest) {
    return finish({
      version: null,
      promoted: false,
      reason: 'no version registered: run `matchcast pipeline train` first',
      new_log_loss: null,
      champion_version: aliases.champion ?? null,
      champion_log_loss: null,
      method: 'nothing-to-do',
    });
  }
  const newLogLoss = newest.metrics.log_loss ?? Number.NaN;
  const championVersion = aliases.champion ?? null;
  if (championVersion === newest.version) {
    return finish({
      version: newest.version,
      promoted: false,
      reason: `version ${newest.version} is already the champion`,
      new_log_loss: newLogLoss,
      champion_version: championVersion,
      champion_log_loss: newLogLoss,
      method: 'nothing-to-do',
    });
  }
  const champion = championVersion === null ? null : await deps.registry.getVersion(championVersion);
  let championLogLoss: number | null = null;
  let method: ComparisonMethod = 'no-champion';
  if (champion) {
    const window = windowOf(newest);
    const cmp = window
      ? await championOnWindow(deps, champion, window, options.featureRows)
      : { logLoss: null, method: 'not-comparable' as const };
    championLogLoss = cmp.logLoss;
    method = cmp.method;
  }
  if (champion && championLogLoss === null) {
    return finish({
      version: newest.version,
      promoted: false,
      reason: `cannot measure champion ${champion.version} on the validation window of version ${newest.version}`,
      new_log_loss: newLogLoss,
      champion_version: champion.version,
      champion_log_loss: null,
      method,
    });
  }
  const decision = decidePromotion(newLogLoss, championLogLoss, deps.config.promotionTolerance);
  const reason = champion
    ? `version ${newest.version} vs champion ${champion.version} (${method}): ${decision.reason}`
    : `version ${newest.version}: ${decision.reason}`;
  if (decision.promote) {
    await deps.registry.setAlias('candidate', newest.version, options.actor ?? PROMOTION_ACTOR, reason);
  }
  return finish({
    version: newest.version,
    promoted: decision.promote,
    reason,
    new_log_loss: newLogLoss,
    champion_version: champion?.version ?? null,
    champion_log_loss: championLogLoss,
    method,
  });
}
