import { outcomeFromScore, outcomeLabel } from '../domain/index.js';
import type { MatchCard as MatchCardShape } from '../schemas/index.js';
import { BodyEncoder } from './body-encoder.js';
import type { CardMarketsSummary } from './markets-view.js';
import type { PredictionRow } from './predictions.js';
import type { EncodedBody, OddsRow } from './types.js';

/** The match card of `GET /predict/cards/`: the API shape (src/schemas/predictions.ts), built here in its field order. */
export type MatchCard = MatchCardShape;

/**
 * Fills `{match_id}`, `{home}` and `{away}` of the configured template, each URL-encoded so that a
 * team name can never break out of its URL component.
 */
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

/**
 * One card: a match is `finished` when both scores are known and it is not in the future; only
 * then are score, outcome and prediction_correct filled (a card never leaks a partial result).
 */
export function buildCard(
  p: PredictionRow,
  odds: OddsRow | undefined,
  template: string,
  markets?: CardMarketsSummary,
): MatchCard {
  const over = markets?.over_2_5;
  const btts = markets?.btts_yes;
  const finished = !p.is_future && p.home_score !== null && p.away_score !== null;
  const outcome = finished ? outcomeFromScore(p.home_score as number, p.away_score as number) : null;
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
    outcome_label: outcome === null ? null : outcomeLabel(outcome),
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
    edge_over_2_5: edge(over, markets?.odd_over25),
    edge_under_2_5: edge(over === undefined ? undefined : 1 - over, markets?.odd_under25),
    edge_btts_yes: edge(btts, markets?.odd_btts_yes),
    edge_btts_no: edge(btts === undefined ? undefined : 1 - btts, markets?.odd_btts_no),
    top_score: markets?.top_score ?? null,
  };
}

/**
 * The cards body for rows already in kick-off order, compressed as it is produced; `markets` (the
 * published run's goals markets by match) fills the goals fields, null where a match has none.
 */
export async function buildCardsBody(
  rows: readonly PredictionRow[],
  odds: ReadonlyMap<number, OddsRow>,
  template: string,
  identityMaxBytes?: number,
  markets?: ReadonlyMap<number, CardMarketsSummary>,
): Promise<EncodedBody> {
  const out = new BodyEncoder(identityMaxBytes);
  await out.push('[');
  for (let i = 0; i < rows.length; i++) {
    const id = rows[i].match_id;
    const card = JSON.stringify(buildCard(rows[i], odds.get(id), template, markets?.get(id)));
    await out.push(i === 0 ? card : `,${card}`);
  }
  await out.push(']');
  return out.finish();
}
