import { DAY_MS, RESULT_LAG_MS } from '../../domain/index.js';
import { bootstrapInterval } from '../bootstrap.js';
import { MIN_TRAIN_MATCHES } from '../families/dixon-coles-market.js';
import type { GoalsPrediction } from '../family.js';
import type { GoalInput } from './goal-inputs.js';
import { predictGoals, type TrainGoalsOptions, trainGoalsModel } from './goals-model.js';
import { marketsFromMatrix } from './markets.js';
import { scoreMatrix } from './score-matrix.js';

export interface GoalsBacktestRow extends GoalsPrediction {
  match_id: number;
  fold_id: number;
  training_cutoff: Date;
}

/** Log losses of one market on the matches where the model and both lines are known. */
export interface MarketLossRow {
  n: number;
  model: number;
  open: number;
  close: number;
  /** 95 % paired-bootstrap interval of mean(model − open) loss; negative = model better. */
  diff_open_ci: [number, number];
  /** Likewise against the closing line (same resampled matches as `diff_open_ci`). */
  diff_close_ci: [number, number];
}

export interface GoalsBacktestResult {
  rows: GoalsBacktestRow[];
  folds: { fold_id: number; training_cutoff: string; until: string; n_train: number; n_predicted: number }[];
  metrics: GoalsMetrics;
}

export interface GoalsMetrics {
  overall: { ou25: MarketLossRow | null; btts: MarketLossRow | null };
  by_region: Record<string, { ou25: MarketLossRow | null; btts: MarketLossRow | null }>;
}

/** Walk-forward: a refit every `refitDays` from `from` predicts the finished matches up to the next. */
export function goalsWalkForward(
  inputs: readonly GoalInput[],
  opts: { from: Date; to: Date; refitDays?: number } & TrainGoalsOptions,
): GoalsBacktestResult {
  const refit = (opts.refitDays ?? 90) * DAY_MS;
  const rows: GoalsBacktestRow[] = [];
  const folds: GoalsBacktestResult['folds'] = [];
  let fold = 0;
  for (let cut = opts.from.getTime(); cut < opts.to.getTime(); cut += refit) {
    const until = Math.min(cut + refit, opts.to.getTime());
    const target = inputs.filter((r) => r.pt >= cut && r.pt < until && r.home_goals !== null);
    if (target.length === 0) continue;
    let nTrain = 0;
    for (const r of inputs) if (r.t + RESULT_LAG_MS <= cut && r.home_goals !== null) nTrain++;
    if (nTrain < MIN_TRAIN_MATCHES) continue;
    const model = trainGoalsModel(inputs, new Date(cut), opts);
    for (const r of target) {
      rows.push({
        match_id: r.match_id,
        fold_id: fold,
        training_cutoff: new Date(cut),
        ...predictGoals(model, r),
      });
    }
    folds.push({
      fold_id: fold,
      training_cutoff: new Date(cut).toISOString(),
      until: new Date(until).toISOString(),
      n_train: model.n_train,
      n_predicted: target.length,
    });
    fold++;
  }
  return { rows, folds, metrics: goalsMetrics(inputs, rows) };
}

const ll = (p: number, y: boolean) => -Math.log(Math.min(1 - 1e-12, Math.max(1e-12, y ? p : 1 - p)));

const pairedBootstrap = (d: readonly number[]) =>
  bootstrapInterval(d, { resamples: 1000, level: 0.95, seed: 20260101 });

/** O/U 2.5 and BTTS log loss of the model against the de-margined opening and closing lines. */
export function goalsMetrics(inputs: readonly GoalInput[], rows: readonly GoalsBacktestRow[]): GoalsMetrics {
  const byId = new Map(inputs.map((r) => [r.match_id, r]));
  type Acc = { m: number[]; o: number[]; c: number[] };
  const acc = () => ({ ou25: { m: [], o: [], c: [] } as Acc, btts: { m: [], o: [], c: [] } as Acc });
  const all = acc();
  const add = (a: Acc, p: number, open: number | null, close: number | null, y: boolean) => {
    if (open === null || close === null) return;
    a.m.push(ll(p, y));
    a.o.push(ll(open, y));
    a.c.push(ll(close, y));
  };
  const regions = new Map<number, ReturnType<typeof acc>>();
  for (const p of rows) {
    const r = byId.get(p.match_id);
    if (!r || r.home_goals === null || r.away_goals === null) continue;
    const mk = marketsFromMatrix(scoreMatrix(p.lh, p.la, p.rho), 1);
    if (!regions.has(r.region_id)) regions.set(r.region_id, acc());
    const over = r.home_goals + r.away_goals > 2.5;
    const btts = r.home_goals > 0 && r.away_goals > 0;
    for (const a of [all, regions.get(r.region_id)!]) {
      add(a.ou25, mk.over['2.5'], r.line.ou_open, r.line.ou_close, over);
      add(a.btts, mk.btts_yes, r.line.btts_open, r.line.btts_close, btts);
    }
  }
  const mean = (x: number[]) => x.reduce((s, v) => s + v, 0) / x.length;
  const summarise = (a: Acc): MarketLossRow | null =>
    a.m.length === 0
      ? null
      : {
          n: a.m.length,
          model: mean(a.m),
          open: mean(a.o),
          close: mean(a.c),
          diff_open_ci: pairedBootstrap(a.m.map((v, i) => v - a.o[i])),
          diff_close_ci: pairedBootstrap(a.m.map((v, i) => v - a.c[i])),
        };
  const by_region: GoalsMetrics['by_region'] = {};
  for (const [id, a] of [...regions].sort((x, y) => x[0] - y[0])) {
    by_region[String(id)] = { ou25: summarise(a.ou25), btts: summarise(a.btts) };
  }
  return { overall: { ou25: summarise(all.ou25), btts: summarise(all.btts) }, by_region };
}

/** A model's log loss beside a de-margined line's on the matches that have that line. */
interface LineFigures {
  n: number;
  model_log_loss: number;
  line_log_loss: number;
}

/** What the goals promotion guard reads: O/U 2.5 log loss of out-of-sample rows and the lines beside it. */
export interface Ou25Figures {
  n: number;
  log_loss: number;
  /** The model beside the opening (closing) line, on the matches with that line. */
  open: LineFigures | null;
  close: LineFigures | null;
}

/** O/U 2.5 log loss of out-of-sample `rows`; each line counts every match that has it (not only both). */
export function ou25Figures(
  inputs: readonly GoalInput[],
  rows: readonly (GoalsPrediction & { match_id: number })[],
): Ou25Figures {
  const byId = new Map(inputs.map((r) => [r.match_id, r]));
  let n = 0;
  let sum = 0;
  const open = { n: 0, m: 0, l: 0 };
  const close = { n: 0, m: 0, l: 0 };
  for (const p of rows) {
    const r = byId.get(p.match_id);
    if (!r || r.home_goals === null || r.away_goals === null) continue;
    const over = r.home_goals + r.away_goals > 2.5;
    const loss = ll(marketsFromMatrix(scoreMatrix(p.lh, p.la, p.rho), 1).over['2.5'], over);
    n++;
    sum += loss;
    for (const [acc, line] of [
      [open, r.line.ou_open],
      [close, r.line.ou_close],
    ] as const) {
      if (line === null) continue;
      acc.n++;
      acc.m += loss;
      acc.l += ll(line, over);
    }
  }
  const figures = (a: typeof open): LineFigures | null =>
    a.n === 0 ? null : { n: a.n, model_log_loss: a.m / a.n, line_log_loss: a.l / a.n };
  return { n, log_loss: n === 0 ? Number.NaN : sum / n, open: figures(open), close: figures(close) };
}
