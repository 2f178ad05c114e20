import { MatchcastError } from '../domain/index.js';
import { type FeatureRow, toModelInput } from '../features/index.js';
import { explainModel, type Model } from '../model/index.js';
import type { Explanation } from '../schemas/index.js';
import type { AnalystRow } from './analyst-columns.js';
import type { AnalystData } from './analyst-data.js';
import { asDate, threeWay } from './io.js';

/** A served row's model as the registry records it. */
export interface ServedModel {
  model: Model;
  model_name: string;
  /** Null for a walk-forward fold. */
  model_version: string | null;
  training_cutoff: string;
}

/** A served row's model: null when no registry knows the run; MC_ERR_NO_EXPLANATION if it was not kept. */
type ServedModelLookup = (stage: string, runId: string) => Promise<ServedModel | null>;

const EXPLANATION_TOLERANCE = 1e-9;

const indexes = new WeakMap<AnalystData, Map<number, AnalystRow>>();

function servedRow(data: AnalystData, matchId: number): AnalystRow | undefined {
  if (!indexes.has(data)) indexes.set(data, new Map(data.predictions.map((r) => [Number(r.match_id), r])));
  return indexes.get(data)!.get(matchId);
}

const outcomes = (v: readonly (number | null)[] | null) =>
  v?.every((x) => typeof x === 'number' && Number.isFinite(x))
    ? { home: v[0] as number, draw: v[1] as number, away: v[2] as number }
    : null;

const triple = (r: AnalystRow, prefix: string) => outcomes(threeWay(r, prefix));

/** What an explanation reads besides the analyst rows: whether a match exists, and its feature row. */
export interface ExplainInputs {
  knownMatch(matchId: number): Promise<boolean>;
  /** The published run's features row of the match. */
  features(matchId: number): Promise<FeatureRow | undefined>;
}

/** `matchId`'s served prediction explained by its own model (champion, fallback or walk-forward fold). */
export async function explainServed(
  data: AnalystData,
  inputs: ExplainInputs,
  matchId: number,
  lookup: ServedModelLookup,
): Promise<Explanation> {
  const none = (why: string) => new MatchcastError('MC_ERR_NO_EXPLANATION', `Match ${matchId}${why}`);
  const row = servedRow(data, matchId);
  if (!row) {
    if (!(await inputs.knownMatch(matchId))) {
      throw new MatchcastError('MC_ERR_MATCH_NOT_FOUND', `Match ${matchId} is not known`);
    }
    throw none(' has no row in the published predictions file (no model scored it)');
  }
  const stage = String(row.model_stage) as Explanation['model_stage'];
  const runId = String(row.model_run_id);
  const served = triple(row, 'proba');
  const features = await inputs.features(matchId);
  if (!served || !features) throw none(': the published run has no features row behind its prediction');
  const found = await lookup(stage, runId);
  if (!found) throw none(`: model run ${runId} (${stage}) is not in the registry`);
  let ex: ReturnType<typeof explainModel>;
  try {
    ex = explainModel(found.model, toModelInput(features, found.model.feature_names));
  } catch (err) {
    if (err instanceof MatchcastError && err.code === 'MC_ERR_MODEL_UNAVAILABLE') {
      throw none(`: ${err.message}`);
    }
    throw err;
  }
  const probabilities = outcomes(ex.probabilities)!;
  const maxAbsError = Math.max(
    ...(['home', 'draw', 'away'] as const).map((k) => Math.abs(probabilities[k] - served[k])),
  );
  const fair =
    features.mkt_missing === 0
      ? outcomes([features.mkt_home, features.mkt_draw, features.mkt_away])
      : triple(row, 'used_fair');
  return {
    match_id: matchId,
    run_id: data.runId,
    model_stage: stage,
    model_run_id: runId,
    model_name: found.model_name,
    model_version: found.model_version,
    training_cutoff: new Date(found.training_cutoff).toISOString(),
    family: found.model.family,
    link: ex.link,
    baseline: ex.baseline && outcomes(ex.baseline),
    offset: ex.offset && outcomes(ex.offset),
    cut_points: ex.cut_points && { c1: ex.cut_points[0], c2: ex.cut_points[1] },
    groups: ex.groups.map((g) => ({
      group: g.group,
      columns: g.columns,
      scores: g.scores && outcomes(g.scores),
      latent: g.latent,
    })),
    scores: ex.scores && outcomes(ex.scores),
    latent: ex.latent,
    probabilities,
    served,
    max_abs_error: maxAbsError,
    reproduces_served: maxAbsError <= EXPLANATION_TOLERANCE,
    market: {
      odds_observed_at: asDate(row.odds_observed_at)?.toISOString() ?? null,
      prices: triple(row, 'used_price'),
      fair,
    },
  };
}
