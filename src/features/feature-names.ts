import { FEATURE_GROUPS } from './groups/index.js';

/** Every numeric feature column, in file order: each group's columns in list order (null = missing). */
export const FEATURE_NAMES: readonly FeatureName[] = FEATURE_GROUPS.flatMap((g) => g.columns);

export type FeatureName = (typeof FEATURE_GROUPS)[number]['columns'][number];

/** The default model inputs: every feature except the baseline odds and the goals-market columns. */
export const MODEL_FEATURE_NAMES: readonly FeatureName[] = FEATURE_NAMES.filter(
  // elo_diff is elo_home − elo_away exactly: a collinear input only slows the fit.
  (n) => !n.startsWith('odds_') && !n.startsWith('gm_') && n !== 'elo_diff',
);

/** Fallback inputs: without what the match's OWN odds give; `mr_sup` stays (earlier matches' odds). */
export const MARKET_FREE_FEATURE_NAMES: readonly FeatureName[] = MODEL_FEATURE_NAMES.filter(
  (n) => !n.startsWith('mkt_') && n !== 'mr_sup_gap',
);

/** A row with no 1X2 odds observed by its prediction time: the fallback scores it. */
export function hasNoOdds(row: { readonly mkt_missing?: unknown }): boolean {
  return row.mkt_missing === 1;
}

const GROUP_OF = new Map<string, string>(FEATURE_GROUPS.flatMap((g) => g.columns.map((c) => [c, g.name])));

export const FEATURE_GROUP_NAMES: readonly string[] = FEATURE_GROUPS.map((g) => g.name);

/** The name of the group that writes column `name`; `other` for a column no group writes (an older model's input). */
export function featureGroupOf(name: string): string {
  return GROUP_OF.get(name) ?? 'other';
}
