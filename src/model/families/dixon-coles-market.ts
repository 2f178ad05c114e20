import { MatchcastError } from '../../domain/index.js';
import type { GoalsFamily, GoalsFitData, GoalsPrediction } from '../family.js';
import type { GoalInput } from '../goals/goal-inputs.js';
import { fitPoissonGlm, type PoissonGlm, predictPoissonGlm } from '../goals/poisson-glm.js';
import { regionRhos } from '../goals/region-rho.js';
import { dixonColesTau } from '../goals/score-matrix.js';

/** Fitted state: one log-linear Poisson regression per side plus the Dixon–Coles ρ. */
export interface DixonColesMarketState {
  home: PoissonGlm;
  away: PoissonGlm;
  /** Global ρ, fitted on the training scores; the ρ of regions absent from `rho_by_region`. */
  rho: number;
  /** ρ per region id from recent closing BTTS prices; absent in artifacts written before it. */
  rho_by_region: Record<string, number>;
}

const lg = (x: number) => Math.log(Math.max(x, 1e-6));

const SIDE_INPUTS = 4;

/** Fewest finished matches a fit accepts (fewer: the walk-forward skips the fold, the stage skips). */
export const MIN_TRAIN_MATCHES = 50;

/** One side's inputs: logs of the opening-implied mean (else rated) and both rated means; a missing flag. */
function sideDesign(
  input: GoalInput,
  side: 0 | 1,
  out: Float64Array = new Float64Array(SIDE_INPUTS),
  offset = 0,
): Float64Array {
  const open = input.open;
  out[offset] = lg(open ? open[side] : input.rated[side]);
  out[offset + 1] = lg(input.rated[side]);
  out[offset + 2] = lg(input.rated[1 - side]);
  out[offset + 3] = open ? 0 : 1;
  return out;
}

/** ρ maximising the Dixon–Coles likelihood of the training scores given their means (golden section). */
function fitRho(train: readonly GoalInput[], lam: ReadonlyArray<[number, number]>): number {
  const low: number[] = [];
  for (let i = 0; i < train.length; i++)
    if (train[i].home_goals! < 2 && train[i].away_goals! < 2) low.push(i);
  const f = (rho: number) => {
    let s = 0;
    for (const i of low) {
      const tau = dixonColesTau(train[i].home_goals!, train[i].away_goals!, lam[i][0], lam[i][1], rho);
      s += Math.log(Math.max(tau, 1e-12));
    }
    return s;
  };
  let lo = -0.25;
  let hi = 0.15;
  for (let it = 0; it < 40; it++) {
    const a = lo + (hi - lo) * 0.381966;
    const b = lo + (hi - lo) * 0.618034;
    if (f(a) > f(b)) hi = b;
    else lo = a;
  }
  return (lo + hi) / 2;
}

/** Dixon–Coles: means from a Poisson regression on opening-implied means and goal ratings; ρ per region. */
export const dixonColesMarket: GoalsFamily<DixonColesMarketState, 'dixon_coles_market'> = {
  kind: 'goals',
  name: 'dixon_coles_market',
  fit(data: GoalsFitData): DixonColesMarketState {
    const rows = data.rows.filter((r) => r.home_goals !== null && r.away_goals !== null);
    if (rows.length < MIN_TRAIN_MATCHES) {
      throw new MatchcastError(
        'MC_ERR_VALIDATION',
        `goals model needs ≥ ${MIN_TRAIN_MATCHES} finished matches, got ${rows.length}`,
      );
    }
    const { l2 } = data.params;
    const n = rows.length;
    const xh = new Float64Array(n * SIDE_INPUTS);
    const xa = new Float64Array(n * SIDE_INPUTS);
    const yh = new Float64Array(n);
    const ya = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      sideDesign(rows[i], 0, xh, i * SIDE_INPUTS);
      sideDesign(rows[i], 1, xa, i * SIDE_INPUTS);
      yh[i] = rows[i].home_goals!;
      ya[i] = rows[i].away_goals!;
    }
    const home = fitPoissonGlm(xh, SIDE_INPUTS, yh, l2);
    const away = fitPoissonGlm(xa, SIDE_INPUTS, ya, l2);
    const lam = rows.map((_, i): [number, number] => [
      predictPoissonGlm(home, xh, i * SIDE_INPUTS),
      predictPoissonGlm(away, xa, i * SIDE_INPUTS),
    ]);
    const rho_by_region = regionRhos(
      rows.map((r, i) => ({
        region_id: r.region_id,
        t: r.t,
        lh: lam[i][0],
        la: lam[i][1],
        btts_close: r.line.btts_close,
      })),
    );
    return { home, away, rho: fitRho(rows, lam), rho_by_region };
  },
  predict(state: DixonColesMarketState, input: GoalInput): GoalsPrediction {
    return {
      lh: predictPoissonGlm(state.home, sideDesign(input, 0)),
      la: predictPoissonGlm(state.away, sideDesign(input, 1)),
      rho: state.rho_by_region[String(input.region_id)] ?? state.rho,
    };
  },
  parse(fields: Record<string, unknown>): DixonColesMarketState {
    const bad = (what: string) =>
      new MatchcastError('MC_ERR_MODEL_UNAVAILABLE', `goals model: malformed ${what}`);
    const finite = (a: unknown, n: number) => Array.isArray(a) && a.length === n && a.every(Number.isFinite);
    const glm = (name: 'home' | 'away'): PoissonGlm => {
      const g = fields[name] as Partial<PoissonGlm> | null;
      const p = Array.isArray(g?.mean) ? g.mean.length : -1;
      if (!g || !finite(g.mean, p) || !finite(g.std, p) || !finite(g.coef, p + 1))
        throw bad(`${name} regression`);
      return { mean: g.mean as number[], std: g.std as number[], coef: g.coef as number[] };
    };
    const rho = fields.rho;
    const byRegion = fields.rho_by_region ?? {};
    if (!Number.isFinite(rho)) throw bad('rho');
    const regionsOk = typeof byRegion === 'object' && byRegion !== null && !Array.isArray(byRegion);
    if (!regionsOk || !Object.values(byRegion).every(Number.isFinite)) throw bad('rho_by_region');
    return {
      home: glm('home'),
      away: glm('away'),
      rho: rho as number,
      rho_by_region: { ...(byRegion as Record<string, number>) },
    };
  },
};
