import type { DriftSummary, FeatureDrift } from './drift.js';
import type { DriftReport } from './drift-report.js';
import { badge, escapeHtml, htmlPage, numCell, table } from './html.js';
import { histogramSvg } from './svg.js';

function pct(x: number | null): string {
  return x === null ? '–' : `${(x * 100).toFixed(1)} %`;
}

function status(f: FeatureDrift): string {
  if (f.test === 'none') return badge('skip', 'not tested');
  return f.drifted ? badge('drift', 'drift') : badge('ok', 'no drift');
}

function featureTable(s: DriftSummary): string {
  const rows = [...s.features]
    .sort((a, b) => Number(b.drifted) - Number(a.drifted) || (b.score ?? -1) - (a.score ?? -1))
    .map((f) => [
      `<a href="#f-${escapeHtml(f.feature)}">${escapeHtml(f.feature)}</a>`,
      status(f),
      escapeHtml(f.kind),
      escapeHtml(
        f.test === 'wasserstein_ks' ? 'Wasserstein/σ + KS' : f.test === 'none' ? '–' : 'Jensen–Shannon + χ²',
      ),
      numCell(f.score),
      numCell(f.threshold),
      numCell(f.p_value, 4),
      numCell(f.ks_statistic),
      numCell(f.mean_reference),
      numCell(f.mean_current),
      `<td class="num">${f.n_reference} / ${f.n_current}</td>`,
      `<td class="num">${pct(f.missing_reference)} / ${pct(f.missing_current)}</td>`,
    ]);
  return table(
    [
      'feature',
      'status',
      'kind',
      'test',
      'score',
      'threshold',
      'p-value',
      'KS D',
      'mean ref',
      'mean cur',
      'n ref / cur',
      'missing ref / cur',
    ],
    rows,
  );
}

function charts(s: DriftSummary, prefix: string): string {
  return `<div class="grid">${s.features
    .map(
      (f) =>
        `<div class="card" id="${prefix}${escapeHtml(f.feature)}"><h3>${escapeHtml(f.feature)} ${status(f)}</h3>` +
        `<div class="muted" style="font-size:12px">score ${f.score === null ? '–' : f.score.toFixed(3)} (threshold ${f.threshold}), p ${f.p_value === null ? '–' : f.p_value.toPrecision(3)}${f.skipped ? ` — ${escapeHtml(f.skipped)}` : ''}</div>` +
        histogramSvg(f.histogram, { title: `${f.feature}: reference vs current` }) +
        '</div>',
    )
    .join('')}</div>`;
}

/** The self-contained drift report: summary first, then per-feature histograms as inline SVG. */
export function renderDriftReport(r: DriftReport): string {
  const f = r.features;
  const perf = r.performance;
  const body = `
<h1>Drift report</h1>
<div class="muted">Generated ${escapeHtml(r.generated_at)} · as-of ${escapeHtml(r.as_of)}</div>
<h2>Summary</h2>
<div class="kpi">drift score<b id="drift-score">${f.drift_score === null ? '–' : f.drift_score.toFixed(3)}</b></div>
<div class="kpi">drifted features<b>${f.n_drifted} / ${f.n_features}</b></div>
<div class="kpi">prediction drift<b>${r.predictions?.drift_score === null || !r.predictions ? '–' : `${r.predictions.n_drifted} / ${r.predictions.n_features}`}</b></div>
<div class="kpi">log loss in window<b>${perf.log_loss === null ? '–' : perf.log_loss.toFixed(4)}</b></div>
<div class="kpi">validation log loss<b>${perf.validation_log_loss === null ? '–' : perf.validation_log_loss.toFixed(4)}</b></div>
${table(
  ['', 'value'],
  [
    ['reference', escapeHtml(r.reference.description)],
    [
      'model version / run',
      escapeHtml(`${r.reference.model_version ?? '–'} / ${r.reference.model_run_id ?? '–'}`),
    ],
    ['training cutoff', escapeHtml(r.reference.training_cutoff ?? '–')],
    ['reference rows', String(r.reference.n_rows)],
    [
      'current window',
      escapeHtml(
        `${r.window.start} → ${r.window.end} (${r.window.days} days)${r.window.includes_future ? ' + every future match' : ''}`,
      ),
    ],
    ['current rows', `${r.current.n_rows} (${r.current.n_finished} finished, ${r.current.n_future} future)`],
    [
      'finished matches in window (performance)',
      `${perf.n_matches}; accuracy ${perf.accuracy === null ? '–' : perf.accuracy.toFixed(3)}`,
    ],
    [
      'drift rule',
      escapeHtml(
        `numeric: Wasserstein-1 / reference σ > ${r.thresholds.wassersteinNorm} and KS p < ${r.thresholds.pValue}; ` +
          `categorical/binary: Jensen–Shannon distance > ${r.thresholds.jensenShannon} and χ² p < ${r.thresholds.pValue}; ` +
          `features with fewer than ${r.thresholds.minSamples} values on a side are not tested`,
      ),
    ],
  ],
)}
<h2>Features</h2>
${featureTable(f)}
<h2>Prediction drift</h2>
${r.predictions ? featureTable(r.predictions) : '<p class="muted">No predictions to compare.</p>'}
<h2>Histograms — features</h2>
${charts(f, 'f-')}
${r.predictions ? `<h2>Histograms — predicted probabilities</h2>${charts(r.predictions, 'p-')}` : ''}
`;
  return htmlPage(`Drift report ${r.generated_at}`, body);
}
