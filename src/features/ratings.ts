/** Elo-type rating with goal-difference weighting and home advantage (World Football Elo style). */
export interface EloParams {
  /** Update step. Default `40` (chosen on 2019–2021, docs/model-quality.md). */
  k: number;
  /** Home advantage in rating points. Default `65`. */
  homeAdvantage: number;
  /** Rating of a team in a region's first season. Default `1500`. */
  initial: number;
}

export const DEFAULT_ELO: EloParams = { k: 40, homeAdvantage: 65, initial: 1500 };

/** Expected score of the home team (win = 1, draw = ½). */
export function eloExpectedHome(home: number, away: number, homeAdvantage: number): number {
  return 1 / (1 + 10 ** ((away - home - homeAdvantage) / 400));
}

/** Goal-difference weight: 1 for a one-goal margin, 1.5 for two, (11 + n)/8 beyond. */
function eloGoalWeight(goalDiff: number): number {
  const n = Math.abs(goalDiff);
  if (n <= 1) return 1;
  if (n === 2) return 1.5;
  return (11 + n) / 8;
}

/** Rating change of the home team (the away team moves by the negative). */
export function eloDelta(home: number, away: number, goalDiff: number, p: EloParams): number {
  const score = goalDiff > 0 ? 1 : goalDiff === 0 ? 0.5 : 0;
  return p.k * eloGoalWeight(goalDiff) * (score - eloExpectedHome(home, away, p.homeAdvantage));
}

/** Pi-ratings (Constantinou & Fenton 2013): each team has a home and an away rating in goal units. */
export interface PiParams {
  /** Learning rate λ. Default `0.035` (paper). */
  lambda: number;
  /** Cross-venue learning rate γ. Default `0.7` (paper). */
  gamma: number;
  /** Log base scale c. Default `3` (paper). */
  c: number;
}

export const DEFAULT_PI: PiParams = { lambda: 0.035, gamma: 0.7, c: 3 };

/** Expected goal difference a rating stands for. */
export function piExpectedGoals(rating: number, c: number): number {
  const g = 10 ** (Math.abs(rating) / c) - 1;
  return rating < 0 ? -g : g;
}

export interface PiTeam {
  home: number;
  away: number;
}

/** Updates both teams' pi-ratings in place from an observed goal difference (home − away). */
export function piUpdate(home: PiTeam, away: PiTeam, goalDiff: number, p: PiParams): void {
  const predicted = piExpectedGoals(home.home, p.c) - piExpectedGoals(away.away, p.c);
  const err = Math.abs(goalDiff - predicted);
  const psi = p.c * Math.log10(1 + err);
  const psiHome = predicted < goalDiff ? psi : -psi;
  const psiAway = -psiHome;
  const dhh = psiHome * p.lambda;
  home.home += dhh;
  home.away += dhh * p.gamma;
  const daa = psiAway * p.lambda;
  away.away += daa;
  away.home += daa * p.gamma;
}
