import { DAY_MS, isMatchcastError } from '../domain/index.js';
import { type FeatureRow, labelKnownBy, predictionTimeOf, toModelInput } from '../features/index.js';
import {
  deserializeGoalsModel,
  deserializeModel,
  GOAL_INPUTS_VERSION,
  type GoalInput,
  type GoalRatingParams,
  type GoalsBacktestResult,
  type GoalsModel,
  type GoalsPrediction,
  goalsWalkForward,
  logLoss,
  type Ou25Figures,
  ou25Figures,
  predictGoals,
  predictProba,
  trainAndValidate,
} from '../model/index.js';
import {
  decidePromotion,
  lineCheckOf,
  type ModelRegistry,
  type ModelVersion,
  type PromotionComparison,
} from '../registry/index.js';
import { readFeatureRows } from './artifacts.js';
import { type PipelineDeps, progressOf } from './deps.js';
import { recipeOf } from './stage-train.js';

const PROMOTION_ACTOR = 'pipeline-promote';

/** How the champion's log loss on the new version's window was obtained. */
type ComparisonMethod =
  | 'no-champion'
  | 'same-window'
  | 'rescored-artifact'
  | 'refit-champion-recipe'
  | 'not-comparable';

/** The guard's view of the newest version; the line checks and verdicts are absent when it never decided. */
export type PromoteResult = Pick<
  PromotionComparison,
  'reason' | 'new_log_loss' | 'champion_version' | 'champion_log_loss'
> &
  Partial<Pick<PromotionComparison, 'opening' | 'closing' | 'champion_verdict' | 'opening_verdict'>> & {
    version: string | null;
    promoted: boolean;
    method: ComparisonMethod | 'nothing-to-do';
  };

/** Records what a guard saw, for `registry promote` and the UI (before any alias moves). */
function recordComparison(
  deps: Pick<PipelineDeps, 'config'>,
  registry: Pick<ModelRegistry, 'writeComparison'>,
  comparison: Omit<PromotionComparison, 'tolerance' | 'opening_margin' | 'decided_at'>,
): Promise<void> {
  return registry.writeComparison({
    ...comparison,
    tolerance: deps.config.promotionTolerance,
    opening_margin: deps.config.promotionOpeningMargin,
    decided_at: new Date().toISOString(),
  });
}

function windowOf(v: ModelVersion): { from: Date; to: Date } | null {
  const from = v.params.validation_from;
  const to = v.params.validation_to;
  if (!from || !to) return null;
  return { from: new Date(from), to: new Date(to) };
}

/**
 * The champion's validation log loss on the new version's window: re-scoring it on matches it trained on
 * would be in-sample and flatter it, so then its recipe is refit before the window, as the new version was.
 */
async function championOnWindow(
  deps: Pick<PipelineDeps, 'db' | 'store' | 'registry'>,
  champion: ModelVersion,
  window: { from: Date; to: Date } | null,
  rowsIn: FeatureRow[] | undefined,
): Promise<{ logLoss: number | null; method: ComparisonMethod }> {
  if (!window) return { logLoss: null, method: 'not-comparable' };
  const cw = windowOf(champion);
  if (cw && cw.from.getTime() === window.from.getTime() && cw.to.getTime() === window.to.getTime()) {
    return { logLoss: champion.metrics.log_loss ?? null, method: 'same-window' };
  }
  const rows = rowsIn ?? (await readFeatureRows(deps));
  // The validation matches of `trainAndValidate`: predicted in the window, results known at its end.
  const inWindow = rows.filter(
    (r) =>
      labelKnownBy(r, window.to.getTime()) &&
      predictionTimeOf(r) >= window.from.getTime() &&
      predictionTimeOf(r) < window.to.getTime(),
  );
  if (inWindow.length === 0) return { logLoss: null, method: 'not-comparable' };
  if (new Date(champion.training_cutoff) <= window.from) {
    const model = deserializeModel((await deps.registry.loadArtifact(champion)).toString('utf8'));
    const probs = inWindow.map((r) => predictProba(model, toModelInput(r, champion.feature_names)));
    const labels = inWindow.map((r) => r.label as number);
    return { logLoss: logLoss(probs, labels), method: 'rescored-artifact' };
  }
  const days = (window.to.getTime() - window.from.getTime()) / DAY_MS;
  const refit = trainAndValidate(rows, { asOf: window.to, validationDays: days, ...recipeOf(champion) });
  return { logLoss: refit.metrics.log_loss ?? null, method: 'refit-champion-recipe' };
}

/**
 * `pipeline promote`: the newest version becomes `candidate` when {@link decidePromotion} passes it.
 * Never touches `champion`: that is the operator's sign-off (`matchcast registry promote`).
 */
export async function runPromoteStage(
  deps: Pick<PipelineDeps, 'config' | 'db' | 'store' | 'registry' | 'log' | 'progress'>,
  options: { featureRows?: FeatureRow[] } = {},
): Promise<PromoteResult> {
  const step = progressOf(deps).step('promote', 'decide', 1);
  const newest = await deps.registry.latestVersion();
  const championVersion = (await deps.registry.aliases()).champion ?? null;
  const newLogLoss = newest ? (newest.metrics.log_loss ?? Number.NaN) : null;
  const finish = (r: PromoteResult): PromoteResult => {
    step.done({ ...r });
    return r;
  };
  const refused = (reason: string, champion_log_loss: number | null, method: PromoteResult['method']) =>
    finish({
      version: newest?.version ?? null,
      promoted: false,
      reason,
      new_log_loss: newLogLoss,
      champion_version: championVersion,
      champion_log_loss,
      method,
    });
  if (!newest || newLogLoss === null) {
    return refused('no version registered: run `matchcast pipeline train` first', null, 'nothing-to-do');
  }
  if (championVersion === newest.version) {
    return refused(`version ${newest.version} is already the champion`, newLogLoss, 'nothing-to-do');
  }
  const champion = championVersion === null ? null : await deps.registry.getVersion(championVersion);
  const { logLoss: championLogLoss, method } = champion
    ? await championOnWindow(deps, champion, windowOf(newest), options.featureRows)
    : { logLoss: null, method: 'no-champion' as const };
  if (champion && championLogLoss === null) {
    const why = `cannot measure champion ${champion.version} on the validation window of version ${newest.version}`;
    return refused(why, null, method);
  }
  const opening = lineCheckOf(newest.metrics, 'open');
  const closing = lineCheckOf(newest.metrics, 'close');
  const { promotionTolerance: tolerance, promotionOpeningMargin: margin } = deps.config;
  const decision = decidePromotion(newLogLoss, championLogLoss, tolerance, opening, margin);
  const reason = champion
    ? `version ${newest.version} vs champion ${champion.version} (${method}): ${decision.reason}`
    : `version ${newest.version}: ${decision.reason}`;
  const result = {
    version: newest.version,
    promoted: decision.promote,
    reason,
    new_log_loss: newLogLoss,
    champion_version: champion?.version ?? null,
    champion_log_loss: championLogLoss,
    method,
    opening,
    closing,
    champion_verdict: decision.champion,
    opening_verdict: decision.opening,
  };
  const { promoted: promote, new_log_loss: _, ...seen } = result;
  await recordComparison(deps, deps.registry, {
    ...seen,
    validation_from: newest.params.validation_from ?? null,
    validation_to: newest.params.validation_to ?? null,
    new_log_loss: Number.isFinite(newLogLoss) ? newLogLoss : null,
    promote,
  });
  if (promote) await deps.registry.setAlias('candidate', newest.version, PROMOTION_ACTOR, reason);
  return finish(result);
}

// The goals model's guard: the 1X2 rule on O/U 2.5. With no operator step in between, a version that
// passes becomes the goals champion at once; one that does not gets no alias.

/** How the goals champion's O/U 2.5 log loss on the new version's walk-forward matches was obtained. */
type GoalsComparisonMethod =
  | 'no-champion'
  /** Same family, inputs, rating and fit parameters: a deterministic refit would give the same rows. */
  | 'same-recipe'
  /** The champion never trained on the window: its artifact is scored on it. */
  | 'rescored-artifact'
  /** The champion's recipe walked forward over the same folds. */
  | 'refit-champion-recipe'
  /** The champion's inputs cannot be built (or its artifact read) by this build: it cannot be served either. */
  | 'champion-retired';

interface GoalsPromoteInput {
  /** The goals registry (`<MODEL_NAME>-goals`); the comparison is recorded in it. */
  registry: ModelRegistry;
  /** The new version, registered with `goalsGuardMetrics` of its walk-forward. */
  version: ModelVersion;
  model: GoalsModel;
  /** Inputs built with `model.rating` as of `asOf`. */
  inputs: readonly GoalInput[];
  backtest: GoalsBacktestResult;
  window: { from: Date; to: Date; refitDays: number };
  /** Builds inputs with another rating (for a champion fitted with other rating parameters). */
  rebuildInputs: (rating: GoalRatingParams) => GoalInput[];
}

export type GoalsPromoteResult = Omit<
  PromotionComparison,
  'method' | 'promote' | 'validation_from' | 'validation_to' | 'tolerance' | 'opening_margin' | 'decided_at'
> & {
  promoted: boolean;
  /** `MC_ERR_PROMOTION_REFUSED` when the guard refused the version (like `registry promote`). */
  code: 'MC_ERR_PROMOTION_REFUSED' | null;
  method: GoalsComparisonMethod;
  /** The model that serves after the decision (new, kept champion, or null: none can), with its inputs. */
  serving: GoalsServing | null;
};

/** A goals version and the inputs built with its rating parameters. */
interface GoalsServing {
  version: ModelVersion;
  model: GoalsModel;
  inputs: readonly GoalInput[];
}

const sameRecipe = (a: GoalsModel, b: GoalsModel): boolean =>
  a.family === b.family &&
  a.inputs_version === b.inputs_version &&
  a.rating.eta === b.rating.eta &&
  a.rating.etaRegion === b.rating.etaRegion &&
  a.params.l2 === b.params.l2;

/** The guard's figures of the goals walk-forward rows: O/U 2.5 log loss and both lines beside it. */
export function goalsGuardMetrics(figures: Ou25Figures): Record<string, number> {
  const out: Record<string, number> = {};
  if (Number.isFinite(figures.log_loss)) {
    out.log_loss = figures.log_loss;
    out.ou25_validation_log_loss = figures.log_loss;
    out.ou25_validation_n = figures.n;
  }
  for (const [line, f] of Object.entries({ open: figures.open, close: figures.close })) {
    if (!f) continue;
    out[`model_on_${line}_log_loss`] = f.model_log_loss;
    out[`market_${line}_log_loss`] = f.line_log_loss;
    out[`market_${line}_n`] = f.n;
  }
  return out;
}

/**
 * {@link decidePromotion} on the O/U 2.5 log loss of the same walk-forward matches, recorded in the goals
 * registry so that `MODEL_NAME=<name>-goals matchcast registry promote --reason …` can override a refusal.
 */
export async function promoteGoalsVersion(
  deps: Pick<PipelineDeps, 'config' | 'db' | 'store' | 'log'>,
  input: GoalsPromoteInput,
): Promise<GoalsPromoteResult> {
  const { registry, version, model, inputs, backtest, window } = input;
  const newFigures = ou25Figures(inputs, backtest.rows);
  const championRef = await registry.resolve('champion');
  let method: GoalsComparisonMethod = 'no-champion';
  let champion: GoalsServing | null = null;
  let retiredWhy = '';
  if (championRef) {
    try {
      const m = deserializeGoalsModel(await registry.loadArtifact(championRef));
      if (m.inputs_version !== GOAL_INPUTS_VERSION) {
        retiredWhy = `its inputs v${m.inputs_version} are not built by this build (v${GOAL_INPUTS_VERSION})`;
      } else {
        const sameRating = m.rating.eta === model.rating.eta && m.rating.etaRegion === model.rating.etaRegion;
        champion = {
          version: championRef,
          model: m,
          inputs: sameRating ? inputs : input.rebuildInputs(m.rating),
        };
      }
    } catch (e) {
      if (!isMatchcastError(e, 'MC_ERR_MODEL_UNAVAILABLE')) throw e;
      retiredWhy = `its artifact cannot be read: ${(e as Error).message}`;
    }
    if (!champion) method = 'champion-retired';
  }
  let newLogLoss = newFigures.log_loss;
  let championLogLoss: number | null = null;
  if (champion) {
    const cm = champion.model;
    if (sameRecipe(cm, model)) {
      method = 'same-recipe';
      championLogLoss = Number.isFinite(newFigures.log_loss) ? newFigures.log_loss : null;
    } else {
      const champInputs = champion.inputs;
      let rows: (GoalsPrediction & { match_id: number })[];
      if (new Date(cm.trained_until) <= window.from) {
        method = 'rescored-artifact';
        const byId = new Map(champInputs.map((r) => [r.match_id, r]));
        rows = backtest.rows.flatMap((r) => {
          const x = byId.get(r.match_id);
          return x ? [{ match_id: r.match_id, ...predictGoals(cm, x) }] : [];
        });
      } else {
        method = 'refit-champion-recipe';
        rows = goalsWalkForward(champInputs, {
          ...window,
          family: cm.family,
          l2: cm.params.l2,
          rating: cm.rating,
        }).rows;
      }
      // Both on the matches both predicted (the same ones unless a fold had too little history).
      const ids = new Set(rows.map((r) => r.match_id));
      championLogLoss = ou25Figures(champInputs, rows).log_loss;
      const both = backtest.rows.filter((r) => ids.has(r.match_id));
      newLogLoss = ou25Figures(inputs, both).log_loss;
      if (!Number.isFinite(championLogLoss)) championLogLoss = null;
    }
  }
  const { open: opening, close: closing } = newFigures;
  const { promotionTolerance: tolerance, promotionOpeningMargin: margin } = deps.config;
  const decision = decidePromotion(newLogLoss, championLogLoss, tolerance, opening, margin);
  // No walk-forward match and nothing serving: signed off without validation, so coming matches get markets.
  const unvalidated = newFigures.n === 0 && !champion;
  const promote = unvalidated || (decision.promote && !(champion && championLogLoss === null));
  const against = champion
    ? `goals version ${version.version} vs champion ${champion.version.version} (${method})`
    : championRef
      ? `goals version ${version.version} (champion ${championRef.version} retired: ${retiredWhy})`
      : `goals version ${version.version}`;
  const reason = unvalidated
    ? `${against}: no walk-forward match to validate on and no champion to keep: signed off without validation`
    : champion && championLogLoss === null
      ? `${against}: cannot measure the champion's O/U 2.5 log loss on the same matches`
      : `${against}, O/U 2.5: ${decision.reason}`;
  const seen = {
    reason,
    method,
    new_log_loss: Number.isFinite(newLogLoss) ? newLogLoss : null,
    champion_version: championRef?.version ?? null,
    champion_log_loss: championLogLoss,
    opening,
    closing,
    champion_verdict: decision.champion,
    opening_verdict: decision.opening,
  };
  const validation = { validation_from: window.from.toISOString(), validation_to: window.to.toISOString() };
  await recordComparison(deps, registry, { version: version.version, ...seen, ...validation, promote });
  if (promote) {
    await registry.setAlias('champion', version.version, PROMOTION_ACTOR, reason);
  } else {
    deps.log.warn({ stage: 'goals', code: 'MC_ERR_PROMOTION_REFUSED', reason }, 'goals version refused');
  }
  const code = promote ? null : 'MC_ERR_PROMOTION_REFUSED';
  const serving = promote ? { version, model, inputs } : champion;
  return { version: version.version, promoted: promote, code, ...seen, serving };
}
