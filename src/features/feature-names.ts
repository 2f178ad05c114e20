import { FEATURE_GROUPS } from './groups/index.js';

/**
 * Every numeric feature column of a feature row, in file order: the columns of each feature group
 * (`groups/index.ts`) in list order. `null` in a row means missing.
 *
 * `mkt_*` are the market features the model may use: de-margined OPENING odds when the source has
 * them, else the source's pre-match odds (`odd_*`). `odds_open_*`, `odds_close_*` and `odds_pre_*`
 * are the de-margined opening, closing and pre-match (closing when known, else opening) odds kept
 * only as baselines for evaluation; {@link MODEL_FEATURE_NAMES} leaves them out on purpose.
 *
 * `mr_sup` is the market-implied supremacy ŝ = h_region + R_home − R_away (log p_home/p_away units)
 * of ratings updated from the CLOSING odds of earlier, already kicked-off matches only (never this
 * match's own closing odds; see market-ratings.ts); `mr_sup_gap` is ŝ minus the supremacy of this
 * match's market view (`mkt_*`), null when that is missing.
 */
export const FEATURE_NAMES: readonly FeatureName[] = FEATURE_GROUPS.flatMap((g) => g.columns);

/** A feature column name: the columns of every group in `groups/index.ts`. */
export type FeatureName = (typeof FEATURE_GROUPS)[number]['columns'][number];

/** The default model inputs: every feature except the baseline odds and the goals-market columns. */
export const MODEL_FEATURE_NAMES: readonly FeatureName[] = FEATURE_NAMES.filter(
  // elo_diff is elo_home − elo_away exactly: a collinear input only slows the fit.
  (n) => !n.startsWith('odds_') && !n.startsWith('gm_') && n !== 'elo_diff',
);

/**
 * Inputs of the market-free fallback: the model inputs without anything derived from the
 * match's OWN odds (`mkt_*`, `mr_sup_gap`); `mr_sup` stays, learnt from earlier matches' closing odds.
 */
export const MARKET_FREE_FEATURE_NAMES: readonly FeatureName[] = MODEL_FEATURE_NAMES.filter(
  (n) => !n.startsWith('mkt_') && n !== 'mr_sup_gap',
);

/** A row with no 1X2 odds observed by its prediction time: the fallback scores it. */
export function hasNoOdds(row: { readonly mkt_missing?: unknown }): boolean {
  return row.mkt_missing === 1;
}

const GROUP_OF = new Map<string, string>(FEATURE_GROUPS.flatMap((g) => g.columns.map((c) => [c, g.name])));

/** The feature groups' names in list order (`groups/index.ts`). */
export const FEATURE_GROUP_NAMES: readonly string[] = FEATURE_GROUPS.map((g) => g.name);

/** The name of the group that writes column `name`; `other` for a column no group writes (an older model's input). */
export function featureGroupOf(name: string): string {
  return GROUP_OF.get(name) ?? 'other';
}
