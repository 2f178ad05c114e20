import { MatchcastError } from './errors.js';

/** Match outcome classes as the spec numbers them (§2.1): 0 home win, 1 draw, 2 away win. */
export type Outcome = 0 | 1 | 2;

export const OUTCOME_LABELS = ['home_win', 'draw', 'away_win'] as const;

export type Probabilities = readonly [number, number, number];

/** Argmax over the three probabilities; ties go to the lower class so the result is deterministic. */
export function predictedClass(p: Probabilities): Outcome {
  let best: Outcome = 0;
  if (p[1] > p[best]) best = 1;
  if (p[2] > p[best]) best = 2;
  return best;
}

export function outcomeFromScore(homeScore: number, awayScore: number): Outcome {
  if (homeScore > awayScore) return 0;
  if (homeScore === awayScore) return 1;
  return 2;
}

/** `p` when it is a probability triple, else MC_ERR_MODEL_UNAVAILABLE: a corrupt model fails its task. */
export function checkedProbabilities(p: Probabilities, what: string): Probabilities {
  const ok =
    p.length === 3 &&
    p.every((x) => Number.isFinite(x) && x >= 0 && x <= 1) &&
    Math.abs(p[0] + p[1] + p[2] - 1) <= 1e-6;
  if (!ok) {
    throw new MatchcastError(
      'MC_ERR_MODEL_UNAVAILABLE',
      `${what} produced probabilities that are not a distribution: [${p.join(', ')}]`,
    );
  }
  return p;
}
