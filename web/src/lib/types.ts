/** Shapes the UI reads from the API (spec §2, docs/dev/TEAM.md "Match card"). */

export type Outcome = 0 | 1 | 2;
export type Stage = 'champion' | 'challenger';

/** One entry of `GET /predict/cards/`. */
export interface Card {
  match_id: number;
  start_time_utc: string;
  home_team_name: string | null;
  away_team_name: string | null;
  region_id: number | null;
  region_name: string | null;
  tournament_name: string | null;
  season: string | null;
  status: 'scheduled' | 'finished';
  is_future: boolean | null;
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
  bookmaker_url: string | null;
  model_stage: string | null;
  model_run_id: string | null;
  predictions_computed_at: string | null;
}

/** One entry of `GET /predict/region-roi/` (spec §2.6). */
export interface RegionRoi {
  region_name: string | null;
  roi_pct: number | null;
  n_bets: number;
  hit_rate: number | null;
  region_id: number | null;
}

/** ROI of a baseline strategy in one region (from `/ui/data/roi-baselines.json`). */
export interface RoiBaseline {
  region_id: number | null;
  region_name: string | null;
  strategy: string;
  roi_pct: number | null;
  n_bets: number;
  hit_rate: number | null;
}

/** `GET /predict/{match_id}` (spec §2.3). */
export interface LivePrediction {
  match_id: number;
  predicted_class: Outcome;
  probabilities: { home_win: number; draw: number; away_win: number };
  model_version: string;
  model_run_id: string;
  cached?: boolean;
}

/** `GET /predict/model/info` (spec §2.7). */
export interface ModelInfo {
  model_name: string;
  stage: string;
  version: string;
  run_id: string;
  metrics: Record<string, number>;
  params: Record<string, string>;
  feature_names: string[];
  created_at: string;
}

/** `GET /monitoring/drift` (spec §2.10); fields beyond drift_score are optional. */
export interface DriftSummary {
  drift_score: number | null;
  n_features?: number;
  n_drifted?: number;
  generated_at?: string;
  window?: unknown;
}

/** `GET /monitoring/reports` (spec §2.11). */
export interface ReportEntry {
  filename: string;
  url: string;
}

/** `GET /ui/config.json`: settings the UI needs from the server. */
export interface UiConfig {
  edge_threshold: number;
  /** Where the threshold came from: the server setting, or the UI's own default. */
  edge_threshold_source?: 'server' | 'default';
}
