import type { DriftSummary, FeatureDrift } from './drift.js';
import type { DriftReport } from './drift-report.js';
import {
  Badge,
  type Column,
  ColumnTable,
  fixed,
  Kpi,
  num,
  numText,
  renderReport,
  Table,
} from './report-html.js';
import { HistogramChart } from './svg.js';

const pct = (x: number | null) => (x === null ? '–' : `${(x * 100).toFixed(1)} %`);

function Status({ f }: { f: FeatureDrift }) {
  if (f.test === 'none') return <Badge kind="skip">not tested</Badge>;
  return f.drifted ? <Badge kind="drift">drift</Badge> : <Badge kind="ok">no drift</Badge>;
}

const TESTS = { wasserstein_ks: 'Wasserstein/σ + KS', jensen_shannon_chi2: 'Jensen–Shannon + χ²', none: '–' };

const FEATURE_COLUMNS: readonly Column<FeatureDrift>[] = [
  ['feature', (f) => <a href={`#f-${f.feature}`}>{f.feature}</a>],
  ['status', (f) => <Status f={f} />],
  ['kind', (f) => f.kind],
  ['test', (f) => TESTS[f.test]],
  ['score', (f) => num(f.score)],
  ['threshold', (f) => num(f.threshold)],
  ['p-value', (f) => num(f.p_value, 4)],
  ['KS D', (f) => num(f.ks_statistic)],
  ['mean ref', (f) => num(f.mean_reference)],
  ['mean cur', (f) => num(f.mean_current)],
  ['n ref / cur', (f) => numText(`${f.n_reference} / ${f.n_current}`)],
  ['missing ref / cur', (f) => numText(`${pct(f.missing_reference)} / ${pct(f.missing_current)}`)],
];

/** Drifted features first, then by score. */
function FeatureTable({ s }: { s: DriftSummary }) {
  const rows = [...s.features].sort(
    (a, b) => Number(b.drifted) - Number(a.drifted) || (b.score ?? -1) - (a.score ?? -1),
  );
  return <ColumnTable columns={FEATURE_COLUMNS} rows={rows} />;
}

function Charts({ s, prefix }: { s: DriftSummary; prefix: string }) {
  return (
    <div class="grid">
      {s.features.map((f) => (
        <div class="card" id={`${prefix}${f.feature}`}>
          <h3>
            {f.feature} <Status f={f} />
          </h3>
          <div class="muted small">
            score {fixed(f.score, 3)} (threshold {f.threshold}), p{' '}
            {f.p_value === null ? '–' : f.p_value.toPrecision(3)}
            {f.skipped ? ` — ${f.skipped}` : ''}
          </div>
          <HistogramChart h={f.histogram} title={`${f.feature}: reference vs current`} />
        </div>
      ))}
    </div>
  );
}

/** The self-contained drift report: summary first, then per-feature histograms as inline SVG. */
export function renderDriftReport(r: DriftReport): string {
  const { features: f, performance: perf, thresholds: t } = r;
  return renderReport(`Drift report ${r.generated_at}`, [
    <h1>Drift report</h1>,
    <div class="muted">
      Generated {r.generated_at} · as-of {r.as_of}
    </div>,
    <h2>Summary</h2>,
    <Kpi label="drift score" id="drift-score">
      {fixed(f.drift_score, 3)}
    </Kpi>,
    <Kpi label="drifted features">
      {f.n_drifted} / {f.n_features}
    </Kpi>,
    <Kpi label="prediction drift">
      {r.predictions?.drift_score === null || !r.predictions
        ? '–'
        : `${r.predictions.n_drifted} / ${r.predictions.n_features}`}
    </Kpi>,
    <Kpi label="log loss in window">{fixed(perf.log_loss, 4)}</Kpi>,
    <Kpi label="validation log loss">{fixed(perf.validation_log_loss, 4)}</Kpi>,
    <Table
      header={['', 'value']}
      rows={[
        ['reference', r.reference.description],
        ['model version / run', `${r.reference.model_version ?? '–'} / ${r.reference.model_run_id ?? '–'}`],
        ['training cutoff', r.reference.training_cutoff ?? '–'],
        ['reference rows', String(r.reference.n_rows)],
        [
          'current window',
          `${r.window.start} → ${r.window.end} (${r.window.days} days)${r.window.includes_future ? ' + every future match' : ''}`,
        ],
        [
          'current rows',
          `${r.current.n_rows} (${r.current.n_finished} finished, ${r.current.n_future} future)`,
        ],
        [
          'finished matches in window (performance)',
          `${perf.n_matches}; accuracy ${fixed(perf.accuracy, 3)}`,
        ],
        [
          'drift rule',
          `numeric: Wasserstein-1 / reference σ > ${t.wassersteinNorm} and KS p < ${t.pValue}; ` +
            `categorical/binary: Jensen–Shannon distance > ${t.jensenShannon} and χ² p < ${t.pValue}; ` +
            `features with fewer than ${t.minSamples} values on a side are not tested`,
        ],
      ]}
    />,
    <h2>Features</h2>,
    <FeatureTable s={f} />,
    <h2>Prediction drift</h2>,
    r.predictions ? <FeatureTable s={r.predictions} /> : <p class="muted">No predictions to compare.</p>,
    <h2>Histograms — features</h2>,
    <Charts s={f} prefix="f-" />,
    ...(r.predictions
      ? [<h2>Histograms — predicted probabilities</h2>, <Charts s={r.predictions} prefix="p-" />]
      : []),
  ]);
}
