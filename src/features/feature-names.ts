/**
 * Every numeric feature column of a feature row, in file order. `null` in a row means missing.
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
export const FEATURE_NAMES = [
  'elo_home',
  'elo_away',
  'elo_diff',
  'elo_expected_home',
  'pi_home',
  'pi_away',
  'pi_expected_gd',
  'form_points_home',
  'form_points_away',
  'form_gf_home',
  'form_ga_home',
  'form_gf_away',
  'form_ga_away',
  'form_venue_points_home',
  'form_venue_points_away',
  'form_venue_gd_home',
  'form_venue_gd_away',
  'rest_days_home',
  'rest_days_away',
  'season_played_home',
  'season_played_away',
  'new_team_home',
  'new_team_away',
  'mkt_home',
  'mkt_draw',
  'mkt_away',
  'mkt_logit_home_away',
  'mkt_logit_draw',
  'mkt_log_draw_away',
  'mkt_overround',
  'mkt_missing',
  'mr_sup',
  'mr_sup_gap',
  'odds_open_home',
  'odds_open_draw',
  'odds_open_away',
  'odds_close_home',
  'odds_close_draw',
  'odds_close_away',
  'odds_pre_home',
  'odds_pre_draw',
  'odds_pre_away',
] as const;

export type FeatureName = (typeof FEATURE_NAMES)[number];

/** Baseline-only columns: never model inputs (closing odds are not known when a match is first predicted). */
export const BASELINE_FEATURE_NAMES: readonly FeatureName[] = FEATURE_NAMES.filter((n) =>
  n.startsWith('odds_'),
);

/** The default model inputs: every feature except the baseline odds columns. */
export const MODEL_FEATURE_NAMES: readonly FeatureName[] = FEATURE_NAMES.filter(
  // elo_diff is elo_home − elo_away exactly: a collinear input only slows the fit.
  (n) => !n.startsWith('odds_') && n !== 'elo_diff',
);
