import { type Outcome, outcomeFromScore, outcomeLabel } from '../domain/index.js';
import { BodyEncoder } from './body-encoder.js';
import type { PredictionRow } from './predictions.js';
import type { EncodedBody, OddsRow } from './types.js';

/** The match card of `GET /predict/cards/` (TEAM.md contract), snake_case, in this field order. */
export interface MatchCard {
  match_id: number;
  start_time_utc: string;
  home_team_name: string;
  away_team_name: string;
  region_id: number | null;
  region_name: string | null;
  tournament_name: string | null;
  season: string | null;
  status: 'scheduled' | 'finished';
  is_future: boolean;
  proba_home: number;
  proba_draw: number;
  proba_away: number;
  predicted_class: Outcome;
  predicted_label: string;
  odd_home: number | null;
  odd_draw: number | null;
  odd_away: number | null;
  home_score: number | null;
  away_score: number | null;
  outcome: Outcome | null;
  outcome_label: string | null;
  prediction_correct: boolean | null;
  bookmaker_url: string;
  model_stage: string;
  model_run_id: string;
  predictions_computed_at: string;
}

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

/**
 * One card: a match is `finished` when both scores are known and it is not in the future; only
 * then are score, outcome and prediction_correct filled (a card never leaks a partial result).
 */
export function buildCard(p: PredictionRow, odds: OddsRow | undefined, template: string): MatchCard {
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
  };
}

/** The cards body for rows already in kick-off order, compressed as it is produced. */
export async function buildCardsBody(
  rows: readonly PredictionRow[],
  odds: ReadonlyMap<number, OddsRow>,
  template: string,
  identityMaxBytes?: number,
): Promise<EncodedBody> {
  const out = new BodyEncoder(identityMaxBytes);
  await out.push('[');
  for (let i = 0; i < rows.length; i++) {
    const card = JSON.stringify(buildCard(rows[i], odds.get(rows[i].match_id), template));
    await out.push(i === 0 ? card : `,${card}`);
  }
  await out.push(']');
  return out.finish();
}
