/** Deterministic API payloads for UI tests and the UI benchmark (shapes of spec §2 and docs/serving-precomputed.md). */

const REGIONS = [
  { id: 1, name: 'England', tournament: 'Premier League' },
  { id: 2, name: 'Spain', tournament: 'LaLiga' },
  { id: 3, name: 'Germany', tournament: 'Bundesliga' },
  { id: 4, name: 'Italy', tournament: 'Serie A' },
];
const TEAMS = [
  'Arsenal',
  'Burnley',
  'Chelsea',
  'Dortmund',
  'Everton',
  'Fulham',
  'Getafe',
  'Hertha',
  'Inter',
  'Juventus',
];

/** A seeded PRNG so fixtures are the same on every run. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

export interface FixtureCard {
  [k: string]: unknown;
  match_id: number;
  region_id: number;
  region_name: string;
  status: 'scheduled' | 'finished';
}

/** `n` cards around `now`: the first half finished, the second half upcoming, one hour apart. */
export function makeCards(n: number, now = Date.UTC(2026, 10, 22, 12)): FixtureCard[] {
  const rand = rng(42);
  const out: FixtureCard[] = [];
  for (let i = 0; i < n; i++) {
    const region = REGIONS[i % REGIONS.length];
    const home = TEAMS[i % TEAMS.length];
    const away = TEAMS[(i + 3) % TEAMS.length];
    const t = now + (i - Math.floor(n / 2)) * 3_600_000;
    const finished = t < now;
    const a = 0.2 + rand() * 0.5;
    const b = 0.15 + rand() * 0.2;
    const p = [a, b, Math.max(0.05, 1 - a - b)];
    const sum = p[0] + p[1] + p[2];
    const [ph, pd, pa] = p.map((x) => x / sum);
    const predicted = ph >= pd && ph >= pa ? 0 : pd >= pa ? 1 : 2;
    const hs = finished ? Math.floor(rand() * 4) : null;
    const as = finished ? Math.floor(rand() * 3) : null;
    const outcome = hs === null || as === null ? null : hs > as ? 0 : hs === as ? 1 : 2;
    const labels = ['home_win', 'draw', 'away_win'];
    // Odds slightly off the model so that some sides show a positive edge.
    const odd = (q: number) => Number((1 / (q * (0.85 + rand() * 0.3))).toFixed(2));
    const prices = i % 17 === 5 ? [null, null, null] : [odd(ph), odd(pd), odd(pa)];
    out.push({
      match_id: 1000 + i,
      start_time_utc: new Date(t).toISOString(),
      home_team_name: home,
      away_team_name: away,
      region_id: region.id,
      region_name: region.name,
      tournament_name: region.tournament,
      season: '2026-2027',
      status: finished ? 'finished' : 'scheduled',
      is_future: !finished,
      proba_home: ph,
      proba_draw: pd,
      proba_away: pa,
      predicted_class: predicted,
      predicted_label: labels[predicted],
      odd_home: prices[0],
      odd_draw: prices[1],
      odd_away: prices[2],
      // The fixture's prices are the ones the prediction used (no later closing line).
      used_odd_home: prices[0],
      used_odd_draw: prices[1],
      used_odd_away: prices[2],
      home_score: hs,
      away_score: as,
      outcome,
      outcome_label: outcome === null ? null : labels[outcome],
      prediction_correct: outcome === null ? null : outcome === predicted,
      bookmaker_url: `https://www.oddsportal.com/search/${home}-${away}/`,
      model_stage: 'champion',
      model_run_id: 'run-champion-0001',
      predictions_computed_at: new Date(now - 3_600_000).toISOString(),
    });
  }
  return out;
}

export const FIXTURE_ROI = [
  { region_name: 'England', roi_pct: 4.2, n_bets: 120, hit_rate: 0.41, region_id: 1 },
  { region_name: 'Spain', roi_pct: -3.1, n_bets: 95, hit_rate: 0.33, region_id: 2 },
  { region_name: 'Germany', roi_pct: 1.5, n_bets: 88, hit_rate: 0.38, region_id: 3 },
  { region_name: 'Italy', roi_pct: null, n_bets: 0, hit_rate: null, region_id: 4 },
];

export const FIXTURE_BASELINES_CSV = [
  'strategy,region_name,roi_pct,n_bets,hit_rate,profit,region_id',
  'model,ALL,1.2,303,0.38,3.6,',
  'model,England,4.2,120,0.41,5.04,1',
  'favourite,ALL,-4.5,900,0.5,-40.5,',
  'favourite,England,-3.9,300,0.52,-11.7,1',
  'favourite,Spain,-5.2,300,0.49,-15.6,2',
  'home,England,-6.1,300,0.44,-18.3,1',
  'home,Spain,-2.0,300,0.46,-6,2',
].join('\n');

export function modelInfo(stage: 'champion' | 'challenger') {
  return {
    model_name: 'matchcast-1x2',
    stage,
    version: stage === 'champion' ? '2' : '3',
    run_id: `run-${stage}-0001`,
    metrics: { log_loss: stage === 'champion' ? 0.981 : 0.975, rps: 0.201, brier: 0.585, roc_auc_ovr: 0.66 },
    params: { classifier: 'multinomial-logistic', l2: '0.01' },
    feature_names: ['elo_diff', 'home_form', 'away_form'],
    created_at: '2026-11-22T03:00:00.000',
  };
}

export const FIXTURE_DRIFT = {
  drift_score: 0.125,
  n_features: 8,
  n_drifted: 1,
  generated_at: '2026-11-22T03:10:00Z',
};

export const FIXTURE_REPORTS = [
  {
    filename: 'drift_report_20261122T031000Z.html',
    url: '/fixture/reports/drift_report_20261122T031000Z.html',
  },
  {
    filename: 'data_quality_20261122T031000Z.html',
    url: '/fixture/reports/data_quality_20261122T031000Z.html',
  },
];
