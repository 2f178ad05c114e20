import { MatchcastError } from '../domain/index.js';
import { FEATURE_GROUP_NAMES, featureGroupOf } from '../features/index.js';
import { modelFamily } from './families/index.js';
import { softmax3 } from './families/multinomial-logit.js';
import { orderedProbabilities } from './families/ordered-logit.js';
import type { Model } from './model.js';
import { transform } from './preprocess.js';

type Triple = [number, number, number];

/** One feature group's Σ coefficient × standardised value, per outcome score (softmax) or in η. */
interface GroupContribution {
  group: string;
  columns: string[];
  scores: Triple | null;
  latent: number | null;
}

/** A 1X2 prediction decomposed by feature group, adding up to its probabilities. */
interface ModelExplanation {
  link: 'softmax' | 'ordered_logit';
  /** Softmax: the intercepts, and the market's log-odds added to each score (with the market offset). */
  baseline: Triple | null;
  offset: Triple | null;
  cut_points: [number, number] | null;
  groups: GroupContribution[];
  scores: Triple | null;
  latent: number | null;
  probabilities: Triple;
}

/** Explains `predictProba(model, input)` by feature group; MC_ERR_MODEL_UNAVAILABLE without `explain`. */
export function explainModel(model: Model, input: ArrayLike<number>): ModelExplanation {
  const family = modelFamily(model.family);
  if (!family.explain)
    throw new MatchcastError(
      'MC_ERR_MODEL_UNAVAILABLE',
      `family ${model.family} has no additive explanation`,
    );
  const z = transform(model.preprocessor, input);
  const t = family.explain(model.state, z, input);
  // The preprocessed columns: the inputs, then one `<name>_missing` per indicator.
  const inputs = [
    ...model.feature_names,
    ...model.preprocessor.indicators.map((j) => model.feature_names[j]),
  ];
  const names = inputs.map((n, j) => (j < model.feature_names.length ? n : `${n}_missing`));
  const groups: GroupContribution[] = [];
  for (const g of [...FEATURE_GROUP_NAMES, 'other']) {
    const idx = inputs.flatMap((n, j) => (featureGroupOf(n) === g ? [j] : []));
    if (idx.length === 0) continue;
    const columns = idx.map((j) => names[j]);
    const sum = (terms: Float64Array) => idx.reduce((s, j) => s + terms[j], 0);
    groups.push(
      t.link === 'softmax'
        ? { group: g, columns, scores: t.terms.map(sum) as Triple, latent: null }
        : { group: g, columns, scores: null, latent: sum(t.terms) },
    );
  }
  const softmax = t.link === 'softmax';
  const scores = softmax
    ? ([0, 1, 2].map(
        (k) => t.intercept[k] + (t.offset?.[k] ?? 0) + groups.reduce((a, g) => a + (g.scores?.[k] ?? 0), 0),
      ) as Triple)
    : null;
  const latent = softmax ? null : groups.reduce((a, g) => a + (g.latent ?? 0), 0);
  return {
    link: t.link,
    baseline: softmax ? t.intercept : null,
    offset: softmax ? t.offset : null,
    cut_points: softmax ? null : t.cuts,
    groups,
    scores,
    latent,
    probabilities: softmax ? softmax3(scores as Triple) : orderedProbabilities(latent as number, t.cuts),
  };
}
