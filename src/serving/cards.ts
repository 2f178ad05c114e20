import { OUTCOME_LABELS, outcomeFromScore } from '../domain/index.js';
import type { MatchCard, OddsRecord } from '../schemas/index.js';
import type { CardMarketsSummary } from './markets-view.js';
import type { PredictionRow } from './predictions.js';

/** Fills `{match_id}`, `{home}`, `{away}`, URL-encoded so a team name cannot break out of its component. */
export function bookmakerUrl(
  template: string,
  p: Pick<PredictionRow, 'match_id' | 'home_team_name' | 'away_team_name'>,
): string {
  return template.replace(/\{(match_id|home|away)\}/g, (_, name: string) => {
    if (name === 'match_id') return String(p.match_id);
    return encodeURIComponent(name === 'home' ? p.home_team_name : p.away_team_name);
  });
}

/** Edge `p × odd − 1` of backing an outcome of model probability `p` at `odd`; null without an odd. */
function edge(p: number | undefined, odd: number | null | undefined): number | null {
  return p === undefined || odd === null || odd === undefined ? null : p * odd - 1;
}

const PRICE_SETS = [
  ['open', 'open_observed_at'],
  ['close', 'close_observed_at'],
  ['odd', 'odds_observed_at'],
] as const;

/** The price set (opening, closing, latest) observed at the prediction's `odds_observed_at`, or null. */
function usedPrices(p: Pick<PredictionRow, 'odds_observed_at'>, o: OddsRecord | undefined) {
  const at = p.odds_observed_at?.getTime();
  if (!o || at === undefined) return null;
  for (const [set, observedAt] of PRICE_SETS) {
    const iso = o[observedAt];
    if (iso === null || Date.parse(iso) !== at) continue;
    return {
      x12: [o[`${set}_home`], o[`${set}_draw`], o[`${set}_away`]],
      ou: [o[`${set}_over25`], o[`${set}_under25`]],
      btts: [o[`${set}_btts_yes`], o[`${set}_btts_no`]],
    };
  }
  return null;
}

/** One card; score, outcome and prediction_correct only once finished (never a partial result). */
export function buildCard(
  p: PredictionRow,
  odds: OddsRecord | undefined,
  template: string,
  markets?: CardMarketsSummary,
): MatchCard {
  const over = markets?.over_2_5;
  const btts = markets?.btts_yes;
  const finished = !p.is_future && p.home_score !== null && p.away_score !== null;
  const outcome = finished ? outcomeFromScore(p.home_score as number, p.away_score as number) : null;
  const used = usedPrices(p, odds);
  return {
    match_id: p.match_id,
    start_time_utc: p.start_time_utc.toISOString(),
    home_team_name: p.home_team_name,
    away_team_name: p.away_team_name,
    region_id: p.region_id,
    region_name: p.region_name,
    tournament_name: p.tournament_name,
    season: p.season,
    status: finished ? 'finished' : 'scheduled',
    is_future: p.is_future,
    proba_home: p.proba_home,
    proba_draw: p.proba_draw,
    proba_away: p.proba_away,
    predicted_class: p.predicted_class,
    predicted_label: p.predicted_label,
    odd_home: odds?.odd_home ?? null,
    odd_draw: odds?.odd_draw ?? null,
    odd_away: odds?.odd_away ?? null,
    home_score: finished ? p.home_score : null,
    away_score: finished ? p.away_score : null,
    outcome,
    outcome_label: outcome === null ? null : OUTCOME_LABELS[outcome],
    prediction_correct: outcome === null ? null : outcome === p.predicted_class,
    bookmaker_url: bookmakerUrl(template, p),
    model_stage: p.model_stage,
    model_run_id: p.model_run_id,
    predictions_computed_at: p.predictions_computed_at.toISOString(),
    odds_observed_at: p.odds_observed_at?.toISOString() ?? null,
    expected_home_goals: markets?.expected_home_goals ?? null,
    expected_away_goals: markets?.expected_away_goals ?? null,
    proba_over_2_5: over ?? null,
    proba_btts_yes: btts ?? null,
    odd_over_2_5: markets?.odd_over25 ?? null,
    odd_under_2_5: markets?.odd_under25 ?? null,
    odd_btts_yes: markets?.odd_btts_yes ?? null,
    odd_btts_no: markets?.odd_btts_no ?? null,
    // Value only against a price that existed at the prediction time (never the later closing one).
    edge_over_2_5: edge(over, used?.ou[0]),
    edge_under_2_5: edge(over === undefined ? undefined : 1 - over, used?.ou[1]),
    edge_btts_yes: edge(btts, used?.btts[0]),
    edge_btts_no: edge(btts === undefined ? undefined : 1 - btts, used?.btts[1]),
    top_score: markets?.top_score ?? null,
    used_odd_home: used?.x12[0] ?? null,
    used_odd_draw: used?.x12[1] ?? null,
    used_odd_away: used?.x12[2] ?? null,
    edge_home: edge(p.proba_home, used?.x12[0]),
    edge_draw: edge(p.proba_draw, used?.x12[1]),
    edge_away: edge(p.proba_away, used?.x12[2]),
    close_odd_home: odds?.close_home ?? null,
    close_odd_draw: odds?.close_draw ?? null,
    close_odd_away: odds?.close_away ?? null,
    close_observed_at: odds?.close_observed_at ?? null,
    used_odd_over_2_5: used?.ou[0] ?? null,
    used_odd_under_2_5: used?.ou[1] ?? null,
    used_odd_btts_yes: used?.btts[0] ?? null,
    used_odd_btts_no: used?.btts[1] ?? null,
  };
}
