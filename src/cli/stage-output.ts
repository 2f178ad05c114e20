// What `matchcast pipeline <stage>` prints of a stage's result: its figures (metrics included) as a
// few human lines or one short log record, and whether a stand-alone stage produced anything at all.

import { STAGE_NAMES } from '../pipeline/index.js';

/** A figure as printed: numbers, words, flags; null when it could not be computed. */
type Figure = string | number | boolean | null;
/** Figures under a label (`model`, `opening`, …); the unlabelled group comes first. */
type FigureGroup = [label: string, figures: Record<string, Figure>];

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});

/** The scalar fields of `o` named in `keys` (all scalar fields when `keys` is omitted). */
function scalars(o: unknown, keys?: readonly string[]): Record<string, Figure> {
  const src = obj(o);
  const out: Record<string, Figure> = {};
  for (const k of keys ?? Object.keys(src)) {
    const v = src[k];
    if (v === null || ['string', 'number', 'boolean'].includes(typeof v)) out[k] = v as Figure;
  }
  return out;
}

/** The metrics named `<prefix><metric>`, without the prefix. */
function prefixed(metrics: unknown, prefix: string): Record<string, Figure> {
  const out: Record<string, Figure> = {};
  for (const m of ['log_loss', 'rps', 'brier', 'accuracy', 'n']) {
    const v = obj(metrics)[`${prefix}${m}`];
    if (v !== undefined) out[m] = v as Figure;
  }
  return out;
}

/** Stages whose figures are scalar fields of their result (others not listed here: all of them). */
const SCALAR_STAGES: Record<string, readonly string[]> = {
  features: ['rows', 'labelled', 'future'],
  promote: ['version', 'promoted', 'new_log_loss', 'champion_log_loss', 'reason'],
  fallback: ['version', 'log_loss', 'folds', 'rows'],
  predict: ['rows', 'champion_rows', 'backtest_rows', 'fallback_rows', 'omitted', 'champion_version'],
};

/** The figures of one stage's result, grouped; metrics included. */
function stageFigures(stage: string, result: unknown): FigureGroup[] {
  const r = obj(result);
  switch (stage) {
    case 'train': {
      const version = obj(r.version);
      return [
        [
          '',
          { version: (version.version as string) ?? null, fit_seconds: (r.fit_seconds as number) ?? null },
        ],
        ['validation', prefixed(version.metrics, '')],
        ['opening line', prefixed(version.metrics, 'market_open_')],
        ['closing line', prefixed(version.metrics, 'market_')],
      ];
    }
    case 'backtest': {
      const gap = (h: string) => (obj(obj(obj(r.horizons)[h]).overall).log_loss_gap as Figure) ?? null;
      return [
        ['', scalars(r, ['rows', 'folds', 'from', 'to', 'refit_days'])],
        ['model', prefixed(r.metrics, 'model_')],
        ['opening line', prefixed(r.metrics, 'open_')],
        ['closing line', prefixed(r.metrics, 'close_')],
        ['log-loss gap to the line', { early: gap('early'), kickoff: gap('kickoff') }],
      ];
    }
    case 'goals': {
      const metrics = obj(r.metrics);
      return [
        ['', scalars(r, ['version', 'rows', 'backtest_rows', 'folds', 'serving_version'])],
        ...Object.keys(metrics).map((m): FigureGroup => [m, scalars(metrics[m])]),
        ['promotion', scalars(r.promotion, ['promoted', 'reason'])],
      ];
    }
    case 'simulate': {
      const s = obj(r.summary);
      const bets = ['n_bets', 'roi_pct', 'hit_rate', 'profit'];
      return [
        ['', scalars(s, ['n_backtest_rows', 'n_candidates', 'edge_threshold', 'odds_source'])],
        ['model', scalars(s.model, bets)],
        ...Object.entries(obj(s.baselines)).map(([k, v]): FigureGroup => [`${k} baseline`, scalars(v, bets)]),
      ];
    }
    case 'drift': {
      const latest = obj(r.latest);
      const drifted = Array.isArray(latest.drifted_features) ? (latest.drifted_features as string[]) : [];
      return [
        ['', scalars(latest, ['drift_score', 'n_features', 'n_drifted', 'n_skipped'])],
        ...(drifted.length > 0
          ? [['drifted', { features: drifted.slice(0, 8).join(',') }] as FigureGroup]
          : []),
      ];
    }
    case 'performance': {
      const all = obj(Array.isArray(r.groups) ? r.groups[0] : undefined);
      return [
        ['', scalars(r, ['n_served_finished', 'n_unserved_finished'])],
        ['served', scalars(all, ['n', 'log_loss', 'rps', 'brier', 'accuracy', 'calibration_error'])],
        ['edge over opening', scalars(all.opening, ['n', 'edge_log_loss'])],
        ['edge over closing', scalars(all.closing, ['n', 'edge_log_loss'])],
      ];
    }
    case 'run': {
      const gates = Array.isArray(r.gates) ? (r.gates as Obj[]) : [];
      const skipped = Array.isArray(r.skipped) ? (r.skipped as string[]) : [];
      const groups: FigureGroup[] = [
        [
          '',
          {
            run_id: (r.run_id as string) ?? null,
            published: Boolean(r.published),
            seconds: (r.total_seconds as number) ?? null,
            ...(skipped.length > 0 ? { skipped: skipped.join(',') } : {}),
          },
        ],
        ['gates', Object.fromEntries(gates.map((g) => [String(g.name), g.passed ? 'pass' : 'FAIL']))],
      ];
      // Each stage's headline figures: its first group and its first metric group.
      for (const s of STAGE_NAMES) {
        if (s === 'fallback' || r[s] === undefined || r[s] === null) continue;
        const [head, metric] = stageFigures(s, r[s]);
        const figures = { ...head?.[1], ...(metric ? prefixKeys(metric) : {}) };
        delete figures.reason;
        groups.push([s, figures]);
      }
      return groups;
    }
    default:
      return [['', scalars(r, SCALAR_STAGES[stage])]];
  }
}

function prefixKeys([label, figures]: FigureGroup): Record<string, Figure> {
  const p = label.replace(/\W+/g, '_');
  return Object.fromEntries(Object.entries(figures).map(([k, v]) => [`${p}_${k}`, v]));
}

function show(v: Figure): string {
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : v.toFixed(4);
  if (typeof v === 'string' && /\s/.test(v)) return JSON.stringify(v);
  return String(v);
}

/** The human form: a head line, then one line per labelled group of figures. */
export function formatStageResult(stage: string, result: unknown, seconds: number): string {
  const lines = [`pipeline ${stage} done in ${seconds.toFixed(1)} s`];
  for (const [label, figures] of stageFigures(stage, result)) {
    const shown = Object.entries(figures).map(([k, v]) => `${k}=${show(v)}`);
    if (shown.length > 0) lines.push(`  ${label ? `${label}: ` : ''}${shown.join(' ')}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Longest figure kept in a log record: a reason or list beyond it is cut (the run record keeps it whole). */
const MAX_FIGURE = 160;
/** Bytes of figures in one log record, so that the line stays well under 2 KB with pino's own fields. */
const MAX_RECORD = 1500;

/** The figures as one flat, bounded log record: a run's whole result (~100 KB) belongs in the run record. */
export function stageLogFigures(stage: string, result: unknown): Record<string, Figure> {
  const out: Record<string, Figure> = {};
  let bytes = 2;
  for (const [label, figures] of stageFigures(stage, result)) {
    for (const [k, raw] of Object.entries(figures)) {
      const key = label ? `${label.replace(/\W+/g, '_')}.${k}` : k;
      const v =
        typeof raw === 'number' && !Number.isInteger(raw)
          ? Number(raw.toPrecision(5))
          : typeof raw === 'string' && raw.length > MAX_FIGURE
            ? `${raw.slice(0, MAX_FIGURE - 1)}…`
            : raw;
      const size = Buffer.byteLength(JSON.stringify(key)) + Buffer.byteLength(JSON.stringify(v)) + 2;
      if (bytes + size > MAX_RECORD) return { ...out, truncated: true };
      out[key] = v;
      bytes += size;
    }
  }
  return out;
}

// Why a stand-alone stage's result is empty (it then fails, as the rows gate of `pipeline run` does),
// or null. `promote` and `performance` have no empty result: "nothing to do" is their answer.
export function nothingProduced(stage: string, result: unknown): string | null {
  const r = obj(result);
  switch (stage) {
    case 'features':
      return r.rows === 0 ? 'no feature rows: the database has no match' : null;
    case 'backtest':
      return r.rows === 0
        ? `no finished match to backtest between ${String(r.from)} and ${String(r.to)} (check --from/--to, or run \`pipeline features\` first)`
        : null;
    case 'goals':
      return result === null ? 'too few finished matches to fit the goals model: no goals version' : null;
    case 'predict':
      return r.rows === 0 ? 'no match to predict' : null;
    case 'simulate':
      return obj(r.summary).n_backtest_rows === 0
        ? 'no backtest rows to bet on: run `pipeline backtest` first'
        : null;
    case 'drift':
      return obj(r.latest).n_features === 0
        ? 'no feature could be compared (no reference or current rows): run `pipeline backtest` and `pipeline predict` first'
        : null;
    default:
      return null;
  }
}
