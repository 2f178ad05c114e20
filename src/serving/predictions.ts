import type { Outcome } from '../domain/index.js';
import { BodyEncoder } from './body-encoder.js';
import type { EncodedBody } from './encoded-body.js';
import { type JsonIndex, JsonIndexBuilder } from './json-index.js';
import { ArtifactInvalidError, cell, requireColumns } from './validate.js';

/** Columns without which a predictions file is rejected; the others read as null when absent. */
const PREDICTION_REQUIRED_COLUMNS = [
  'match_id',
  'home_team_name',
  'away_team_name',
  'start_time_utc',
  'proba_home',
  'proba_draw',
  'proba_away',
  'predicted_class',
  'predicted_label',
  'is_future',
  'model_stage',
  'model_run_id',
  'predictions_computed_at',
] as const;

/** Probabilities are rounded by some writers; a sum within this of 1 is accepted. */
const PROBA_SUM_TOLERANCE = 1e-3;

function probability(row: Record<string, unknown>, i: number, column: string): number {
  const p = cell.num(row, i, column, false) as number;
  if (p < 0 || p > 1)
    throw new ArtifactInvalidError(`row ${i}: column ${column} must be in [0, 1], got ${p}`);
  return p;
}

/** Validates every row fully; throws {@link ArtifactInvalidError} naming the first bad row and column. */
export function parsePredictionRows(raw: Record<string, unknown>[]) {
  requireColumns(raw, PREDICTION_REQUIRED_COLUMNS, 'predictions.parquet');
  const seen = new Set<number>();
  return raw.map((r, i) => {
    const matchId = cell.int(r, i, 'match_id', false) as number;
    if (matchId < 1) throw new ArtifactInvalidError(`row ${i}: match_id must be >= 1, got ${matchId}`);
    if (seen.has(matchId)) throw new ArtifactInvalidError(`row ${i}: duplicate match_id ${matchId}`);
    seen.add(matchId);
    const ph = probability(r, i, 'proba_home');
    const pd = probability(r, i, 'proba_draw');
    const pa = probability(r, i, 'proba_away');
    if (Math.abs(ph + pd + pa - 1) > PROBA_SUM_TOLERANCE)
      throw new ArtifactInvalidError(`row ${i}: probabilities sum to ${ph + pd + pa}, expected 1`);
    const cls = cell.int(r, i, 'predicted_class', false) as number;
    if (cls !== 0 && cls !== 1 && cls !== 2)
      throw new ArtifactInvalidError(`row ${i}: predicted_class must be 0, 1 or 2, got ${cls}`);
    return {
      match_id: matchId,
      home_team_name: cell.str(r, i, 'home_team_name', false) as string,
      away_team_name: cell.str(r, i, 'away_team_name', false) as string,
      start_time_utc: cell.date(r, i, 'start_time_utc'),
      region_id: r.region_id === undefined ? null : cell.int(r, i, 'region_id', true),
      region_name: r.region_name === undefined ? null : cell.str(r, i, 'region_name', true),
      tournament_name: r.tournament_name === undefined ? null : cell.str(r, i, 'tournament_name', true),
      season: r.season === undefined ? null : cell.str(r, i, 'season', true),
      proba_home: ph,
      proba_draw: pd,
      proba_away: pa,
      predicted_class: cls as Outcome,
      predicted_label: cell.str(r, i, 'predicted_label', false) as string,
      is_future: cell.bool(r, i, 'is_future', false) as boolean,
      model_stage: cell.str(r, i, 'model_stage', false) as string,
      model_run_id: cell.str(r, i, 'model_run_id', false) as string,
      predictions_computed_at: cell.date(r, i, 'predictions_computed_at'),
      home_score: r.home_score === undefined ? null : cell.int(r, i, 'home_score', true),
      away_score: r.away_score === undefined ? null : cell.int(r, i, 'away_score', true),
      // When the odds behind the market features were observed; null when none (or an older file).
      odds_observed_at: r.odds_observed_at == null ? null : cell.date(r, i, 'odds_observed_at'),
    };
  });
}

/** One validated row of `predictions/predictions.parquet` (docs/pipeline.md, "Artifact columns"). */
export type PredictionRow = ReturnType<typeof parsePredictionRows>[number];

/** Kick-off order, then match id, so that bulk and cards are deterministic whatever the file order. */
export function byKickOff(a: PredictionRow, b: PredictionRow): number {
  return a.start_time_utc.getTime() - b.start_time_utc.getTime() || a.match_id - b.match_id;
}

/** Spec §2.2 (snake_case), fields in the spec's order. */
function precomputedRecord(p: PredictionRow) {
  return {
    match_id: p.match_id,
    proba_home: p.proba_home,
    proba_draw: p.proba_draw,
    proba_away: p.proba_away,
    predicted_class: p.predicted_class,
    predicted_label: p.predicted_label,
    is_future: p.is_future,
    start_time_utc: p.start_time_utc.toISOString(),
    home_team_name: p.home_team_name,
    away_team_name: p.away_team_name,
    model_run_id: p.model_run_id,
    model_stage: p.model_stage,
    predictions_computed_at: p.predictions_computed_at.toISOString(),
    odds_observed_at: p.odds_observed_at?.toISOString() ?? null,
  };
}

/** Spec §2.1 (camelCase names where the spec has them; display columns only). */
function bulkRecord(p: PredictionRow) {
  return {
    match_id: p.match_id,
    homeTeamName: p.home_team_name,
    awayTeamName: p.away_team_name,
    startTimeUtc: p.start_time_utc.toISOString(),
    proba_home: p.proba_home,
    proba_draw: p.proba_draw,
    proba_away: p.proba_away,
    predicted_class: p.predicted_class,
    predicted_label: p.predicted_label,
    is_future: p.is_future,
    model_stage: p.model_stage,
    model_run_id: p.model_run_id,
    odds_observed_at: p.odds_observed_at?.toISOString() ?? null,
  };
}

/** §2.2 records by match id and the §2.1 bulk body, off the JS heap (a small heap keeps the RSS low). */
export interface PredictionsView {
  records: JsonIndex;
  bulk: EncodedBody;
}

/** @param sorted validated rows in {@link byKickOff} order */
export async function buildPredictionsView(
  sorted: readonly PredictionRow[],
  identityMaxBytes?: number,
): Promise<PredictionsView> {
  const records = new JsonIndexBuilder(sorted.length * 420);
  const bulk = await BodyEncoder.array(
    sorted,
    (p) => {
      records.push(p.match_id, JSON.stringify(precomputedRecord(p)));
      return bulkRecord(p);
    },
    identityMaxBytes,
  );
  return { records: records.finish(), bulk };
}
