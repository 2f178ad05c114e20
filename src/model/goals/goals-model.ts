import { MatchcastError, RESULT_LAG_MS } from '../../domain/index.js';
import { DEFAULT_GOALS_FAMILY, type GoalsFamilyName, goalsFamily } from '../families/index.js';
import type { GoalsFitParams, GoalsPrediction } from '../family.js';
import { parseArtifact } from '../model.js';
import {
  DEFAULT_GOAL_RATING,
  GOAL_INPUTS_VERSION,
  type GoalInput,
  type GoalRatingParams,
} from './goal-inputs.js';

/** Bump on any incompatible change of the artifact layout (additive fields keep it). */
const GOALS_FORMAT_VERSION = 1;

/** A trained goals model: plain JSON data (the common fields, the family's fitted state under `state`). */
export interface GoalsModel {
  format_version: number;
  family: GoalsFamilyName;
  /** Input definition version and rating parameters: together the goals model's feature fingerprint. */
  inputs_version: number;
  rating: GoalRatingParams;
  /** Resolved fit parameters (with family, inputs version and rating: the recipe). */
  params: GoalsFitParams;
  n_train: number;
  /** Only results known at this instant (kick-off + RESULT_LAG_MS at or before it) were used. */
  trained_until: string;
  state: object;
}

export interface TrainGoalsOptions extends Partial<GoalsFitParams> {
  /** Family. Default {@link DEFAULT_GOALS_FAMILY}. */
  family?: GoalsFamilyName;
  /** Rating parameters the inputs were built with (recorded, not applied). */
  rating?: GoalRatingParams;
}

function resolveGoalsParams(options: Partial<GoalsFitParams> = {}): GoalsFitParams {
  return { l2: options.l2 ?? 1e-3 };
}

/** Fits on the finished matches whose results were known at `until` (kick-off + RESULT_LAG_MS ≤ until). */
export function trainGoalsModel(
  inputs: readonly GoalInput[],
  until: Date,
  options: TrainGoalsOptions = {},
): GoalsModel {
  const family = options.family ?? DEFAULT_GOALS_FAMILY;
  const cut = until.getTime();
  const train = inputs.filter(
    (r) => r.t + RESULT_LAG_MS <= cut && r.home_goals !== null && r.away_goals !== null,
  );
  const params = resolveGoalsParams(options);
  const state = goalsFamily(family).fit({ rows: train, params });
  return {
    format_version: GOALS_FORMAT_VERSION,
    family,
    inputs_version: GOAL_INPUTS_VERSION,
    rating: options.rating ?? DEFAULT_GOAL_RATING,
    params,
    n_train: train.length,
    trained_until: until.toISOString(),
    state,
  };
}

export function predictGoals(model: GoalsModel, input: GoalInput): GoalsPrediction {
  return goalsFamily(model.family).predict(model.state, input);
}

/** JSON text of a model; {@link deserializeGoalsModel} gives back a model that predicts bit-identically. */
export function serializeGoalsModel(model: GoalsModel): string {
  return JSON.stringify(model);
}

export function deserializeGoalsModel(text: string | Buffer): GoalsModel {
  const raw = parseArtifact(String(text), GOALS_FORMAT_VERSION, 'goals model');
  const family = goalsFamily(raw.family);
  const rating = raw.rating as GoalRatingParams;
  if (typeof rating?.eta !== 'number' || typeof rating?.etaRegion !== 'number')
    throw new MatchcastError('MC_ERR_MODEL_UNAVAILABLE', 'goals model: malformed rating parameters');
  // Absent in artifacts written before the field existed: those were fitted with the defaults.
  const p = (raw.params ?? {}) as Partial<GoalsFitParams>;
  if (p.l2 !== undefined && !(typeof p.l2 === 'number' && p.l2 >= 0))
    throw new MatchcastError('MC_ERR_MODEL_UNAVAILABLE', 'goals model: malformed params');
  return {
    format_version: GOALS_FORMAT_VERSION,
    family: family.name as GoalsFamilyName,
    inputs_version: Number(raw.inputs_version),
    rating: { eta: rating.eta, etaRegion: rating.etaRegion },
    params: resolveGoalsParams(p),
    n_train: Number(raw.n_train),
    trained_until: String(raw.trained_until),
    state: family.parse((raw.state ?? {}) as Record<string, unknown>),
  };
}
