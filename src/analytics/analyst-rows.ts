import type { Match, OddsRecord } from '../domain/index.js';
import { demargin, demarginPrices } from '../features/index.js';
import { marketsFromMatrix, scoreMatrix } from '../model/index.js';
import type { ParquetRow } from '../storage/index.js';
import { type AnalystRow, BACKTEST_EXPORT_COLUMNS } from './analyst-columns.js';
import type { AnalystSources } from './analyst-sources.js';
import { asDate, numOrNull, outcomeOf, threeWay } from './io.js';

const SIDES = ['home', 'draw', 'away'] as const;

/** The two-way markets: their timeline name, then the first (over/yes) and second price columns. */
const TWO_WAY = [
  ['ou25', 'over25', 'under25'],
  ['btts', 'btts_yes', 'btts_no'],
] as const;

/** The goals model's columns of a match it has no out-of-sample row for. */
const NO_GOALS = Object.fromEntries(
  BACKTEST_EXPORT_COLUMNS.filter((c) => c.name.startsWith('goals_')).map((c) => [c.name, null]),
);

function matchColumns(id: number, m: Match | undefined, fallback: ParquetRow | undefined): AnalystRow {
  const outcome = outcomeOf(m);
  return {
    match_id: id,
    start_time_utc: m?.startTimeUtc ?? asDate(fallback?.start_time_utc) ?? null,
    region_id: m?.regionId ?? numOrNull(fallback?.region_id),
    region_name: m?.regionName ?? (fallback?.region_name as string | undefined) ?? null,
    season: m?.season ?? (fallback?.season as string | undefined) ?? null,
    home_team_name: m?.homeTeamName ?? (fallback?.home_team_name as string | undefined) ?? null,
    away_team_name: m?.awayTeamName ?? (fallback?.away_team_name as string | undefined) ?? null,
    home_score: outcome === null ? null : m!.homeScore,
    away_score: outcome === null ? null : m!.awayScore,
    outcome,
  };
}

function put3(out: AnalystRow, prefix: string, v: readonly (number | null)[] | null | undefined): void {
  SIDES.forEach((s, i) => {
    const x = v?.[i];
    out[`${prefix}_${s}`] = typeof x === 'number' && Number.isFinite(x) ? x : null;
  });
}

/** Raw and de-margined opening and closing 1X2 lines of a match (power de-margining, as the features). */
function lineColumns(out: AnalystRow, o: OddsRecord | undefined): void {
  put3(out, 'open', o ? [o.open_home, o.open_draw, o.open_away] : null);
  out.open_observed_at = o?.open_observed_at ?? null;
  put3(out, 'open_fair', o ? demargin(o.open_home, o.open_draw, o.open_away, 'power') : null);
  put3(out, 'close', o ? [o.close_home, o.close_draw, o.close_away] : null);
  out.close_observed_at = o?.close_observed_at ?? null;
  put3(out, 'close_fair', o ? demargin(o.close_home, o.close_draw, o.close_away, 'power') : null);
}

/** P(first) of a two-way line, de-margined (power); null unless both prices are usable. */
function fairFirst(a: number | null | undefined, b: number | null | undefined): number | null {
  if (typeof a !== 'number' || typeof b !== 'number') return null;
  return demarginPrices([a, b], 'power')?.[0] ?? null;
}

/** The 1X2 prices observed at exactly `at` (the observation the model's features used), else null. */
function pricesAt(src: AnalystSources, id: number, at: Date | null): readonly number[] | null {
  if (!at) return null;
  const o = src.timeline.latest(id, '1x2', at);
  return o && o.observed_at.getTime() === at.getTime() ? o.prices : null;
}

/** `backtest`: each walk-forward match's out-of-sample predictions beside its 1X2, O/U and BTTS lines. */
export function backtestExportRows(src: AnalystSources): AnalystRow[] {
  const fallback = new Map(src.fallbackBacktest.map((r) => [Number(r.match_id), r]));
  const goals = new Map(
    src.markets.filter((r) => r.model_stage === 'backtest').map((r) => [Number(r.match_id), r]),
  );
  const out: AnalystRow[] = [];
  const seen = new Set<number>();
  for (const b of src.backtest) {
    const id = Number(b.match_id);
    if (seen.has(id)) continue;
    seen.add(id);
    const m = src.matches.get(id);
    const f = src.features.get(id);
    const o = src.odds.get(id);
    const row = matchColumns(id, m, undefined);
    put3(row, 'early_proba', threeWay(b, 'proba'));
    row.early_model_run_id = (b.model_run_id as string | null) ?? null;
    row.early_training_cutoff = asDate(b.training_cutoff);
    const earlyAt = f?.prediction_time ?? null;
    row.early_prediction_time = earlyAt;
    row.early_odds_observed_at = f?.odds_observed_at ?? null;
    put3(row, 'early_price', pricesAt(src, id, row.early_odds_observed_at));
    put3(row, 'early_fair', f && f.mkt_missing === 0 ? [f.mkt_home, f.mkt_draw, f.mkt_away] : null);
    put3(row, 'kickoff_proba', threeWay(b, 'kickoff_proba'));
    row.kickoff_model_run_id = (b.kickoff_model_run_id as string | null | undefined) ?? null;
    row.kickoff_training_cutoff = asDate(b.kickoff_training_cutoff);
    row.kickoff_prediction_time = asDate(b.kickoff_prediction_time);
    row.kickoff_odds_observed_at = asDate(b.kickoff_odds_observed_at);
    const fb = fallback.get(id);
    put3(row, 'fallback_proba', threeWay(fb, 'proba'));
    row.fallback_model_run_id = (fb?.model_run_id as string | undefined) ?? null;
    row.fallback_training_cutoff = asDate(fb?.training_cutoff);
    row.fallback_prediction_time = fb ? earlyAt : null;
    lineColumns(row, o);
    const g = goals.get(id);
    const cutoff = asDate(g?.training_cutoff);
    // Only out-of-sample goals rows: the fold's cut-off is at or before the kick-off.
    if (g && cutoff && m && m.startTimeUtc >= cutoff) {
      const [lh, la, rho] = [g.expected_home_goals, g.expected_away_goals, g.rho].map(Number);
      const mk = marketsFromMatrix(scoreMatrix(lh, la, rho), 1);
      row.goals_expected_home = lh;
      row.goals_expected_away = la;
      row.goals_rho = rho;
      row.goals_proba_over25 = mk.over['2.5'] ?? null;
      row.goals_proba_btts_yes = mk.btts_yes;
      row.goals_model_run_id = String(g.model_run_id);
      row.goals_training_cutoff = cutoff;
      row.goals_prediction_time = earlyAt;
    } else Object.assign(row, NO_GOALS);
    for (const [market, a, b] of TWO_WAY) {
      const seen = earlyAt ? src.timeline.latest(id, market, earlyAt) : null;
      row[`early_${a}`] = seen?.prices[0] ?? null;
      row[`early_${b}`] = seen?.prices[1] ?? null;
      row[`early_${market}_observed_at`] = seen?.observed_at ?? null;
      for (const when of ['open', 'close'] as const) {
        row[`${when}_${a}`] = o?.[`${when}_${a}`] ?? null;
        row[`${when}_${b}`] = o?.[`${when}_${b}`] ?? null;
        row[`${when}_fair_${a}`] = fairFirst(o?.[`${when}_${a}`], o?.[`${when}_${b}`]);
      }
    }
    out.push(row);
  }
  return sortByKickoff(out);
}

function sortByKickoff(rows: AnalystRow[]): AnalystRow[] {
  const t = (r: AnalystRow) => (r.start_time_utc instanceof Date ? r.start_time_utc.getTime() : 0);
  return rows.sort((a, b) => t(a) - t(b) || Number(a.match_id) - Number(b.match_id));
}

/** `predictions`: each served prediction, the 1X2 prices it used (seen at `odds_observed_at`), the lines. */
export function predictionExportRows(src: AnalystSources): AnalystRow[] {
  const out: AnalystRow[] = [];
  for (const p of src.predictions) {
    const id = Number(p.match_id);
    const m = src.matches.get(id);
    const row = matchColumns(id, m, p);
    // The row's own score (only set for a match finished before the run's as-of) wins over the DB's.
    row.tournament_name = (p.tournament_name as string | undefined) ?? m?.tournamentName ?? null;
    const proba = threeWay(p, 'proba');
    put3(row, 'proba', proba);
    row.predicted_class = numOrNull(p.predicted_class);
    row.model_stage = (p.model_stage as string | undefined) ?? null;
    row.model_run_id = (p.model_run_id as string | undefined) ?? null;
    row.predictions_computed_at = asDate(p.predictions_computed_at);
    row.prediction_time = src.features.get(id)?.prediction_time ?? null;
    row.odds_observed_at = asDate(p.odds_observed_at);
    const used = pricesAt(src, id, row.odds_observed_at);
    put3(row, 'used_price', used);
    put3(row, 'used_fair', used ? demargin(used[0], used[1], used[2], 'power') : null);
    put3(row, 'used_edge', used && proba ? proba.map((q, i) => q * used[i] - 1) : null);
    lineColumns(row, src.odds.get(id));
    out.push(row);
  }
  return sortByKickoff(out);
}
