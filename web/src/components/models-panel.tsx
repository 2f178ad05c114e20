import { formatNumber, formatTimestamp, shortRunId } from '../lib/format.js';
import type { DriftSummary, ModelInfo, PromotionStatus, ReportEntry, Stage } from '../lib/types.js';

export type Loadable<T> =
  | { state: 'loading' }
  | { state: 'ok'; value: T }
  | { state: 'error'; message: string };

interface Props {
  stage: Stage;
  models: Record<Stage, Loadable<ModelInfo>>;
  drift: Loadable<DriftSummary>;
  reports: Loadable<ReportEntry[]>;
  /** The promotion guard's latest comparison (`GET /monitoring/promotion`). Default: not shown. */
  promotion?: Loadable<PromotionStatus>;
}

const STAGES: Stage[] = ['champion', 'challenger'];
const METRIC_ORDER = ['log_loss', 'rps', 'brier', 'roc_auc_ovr', 'accuracy'];

function metricNames(models: Props['models']): string[] {
  const set = new Set<string>();
  for (const s of STAGES) {
    const m = models[s];
    if (m.state === 'ok') for (const k of Object.keys(m.value.metrics)) set.add(k);
  }
  const rank = (k: string) => {
    const i = METRIC_ORDER.indexOf(k);
    return i === -1 ? METRIC_ORDER.length : i;
  };
  return [...set].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

function cell(m: Loadable<ModelInfo>, pick: (v: ModelInfo) => string) {
  if (m.state === 'loading') return '…';
  if (m.state === 'error') return '–';
  return pick(m.value);
}

/** Report kind from its filename: `drift_report_<ts>.html`, `data_quality_<ts>.html`, `performance_report_<ts>.html`. */
export function reportKind(filename: string): 'drift' | 'quality' | 'performance' | 'other' {
  if (filename.startsWith('drift_report')) return 'drift';
  if (filename.startsWith('data_quality')) return 'quality';
  if (filename.startsWith('performance_report')) return 'performance';
  return 'other';
}

/** The newest report of each kind; names embed a sortable timestamp, so the largest name is the newest. */
export function latestReports(list: ReportEntry[]): {
  drift?: ReportEntry;
  quality?: ReportEntry;
  performance?: ReportEntry;
} {
  const out: { drift?: ReportEntry; quality?: ReportEntry; performance?: ReportEntry } = {};
  for (const r of [...list].sort((a, b) => a.filename.localeCompare(b.filename))) {
    const k = reportKind(r.filename);
    if (k !== 'other') out[k] = r;
  }
  return out;
}

function reportHref(r: ReportEntry): string {
  // The redirect route signs a fresh URL at click time, so a page left open for hours still works.
  return `/monitoring/reports/${encodeURIComponent(r.filename)}`;
}

function ReportLink({ r, label }: { r: ReportEntry; label: string }) {
  return (
    <a href={reportHref(r)} target="_blank" rel="noopener noreferrer" data-report={r.filename}>
      {label}
      <span class="sr-only"> (opens in a new tab)</span>
    </a>
  );
}

/** A model's validation log loss against a market line on the same matches (registry metrics). */
function lineEdge(v: ModelInfo, line: 'open' | 'close'): string {
  const model = v.metrics[`model_on_${line}_log_loss`];
  const market = v.metrics[`market_${line}_log_loss`];
  if (!Number.isFinite(model) || !Number.isFinite(market)) return '–';
  const edge = market - model;
  return `${formatNumber(market, 4)} (edge ${edge > 0 ? '+' : ''}${edge.toFixed(4)})`;
}

const VERDICT: Record<string, string> = {
  beats: 'beats',
  ties: 'ties (within tolerance)',
  worse: 'worse',
  'no-champion': 'no champion',
  'no-line': 'no opening odds',
  'not-checked': 'not checked',
  'not-finite': 'no log loss',
};

/** What the promotion guard decided for the newest judged version, with the bars it was held to. */
function PromotionGuard({ promotion }: { promotion: Loadable<PromotionStatus> }) {
  if (promotion.state === 'loading') return <p>Loading promotion guard…</p>;
  if (promotion.state === 'error') return <p class="error">Promotion guard: {promotion.message}</p>;
  const c = promotion.value.comparison;
  if (!c) return <p data-testid="promotion">No version has been through the promotion guard yet.</p>;
  const f = (x: number | null | undefined) => formatNumber(x ?? null, 4);
  return (
    <div data-testid="promotion">
      <p>
        Version {c.version}{' '}
        <strong data-field="promotion-verdict">{c.promote ? 'passed' : 'was refused'}</strong>
        {c.promote && promotion.value.aliases.candidate === c.version ? ' and is the candidate' : ''}: it must
        beat or tie the champion (tolerance {c.tolerance}) and beat the opening line on the same validation
        matches.
      </p>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard */}
      <section class="scroll-x" tabIndex={0} aria-label="Promotion guard comparison">
        <table class="model-table">
          <caption class="sr-only">Validation log loss of the new version against each bar</caption>
          <thead>
            <tr>
              <th scope="col">Bar</th>
              <th scope="col">Bar log loss</th>
              <th scope="col">Version {c.version}</th>
              <th scope="col">Verdict</th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <th scope="row">Champion {c.champion_version ?? '–'}</th>
              <td class="num">{f(c.champion_log_loss)}</td>
              <td class="num">{f(c.new_log_loss)}</td>
              <td>{VERDICT[c.champion_verdict] ?? c.champion_verdict}</td>
            </tr>
            <tr>
              <th scope="row">Opening line (required)</th>
              <td class="num">{f(c.opening?.line_log_loss)}</td>
              <td class="num">{f(c.opening?.model_log_loss)}</td>
              <td>{VERDICT[c.opening_verdict] ?? c.opening_verdict}</td>
            </tr>
            <tr>
              <th scope="row">Closing line (shown)</th>
              <td class="num">{f(c.closing?.line_log_loss)}</td>
              <td class="num">{f(c.closing?.model_log_loss)}</td>
              <td>
                {c.closing
                  ? c.closing.model_log_loss < c.closing.line_log_loss
                    ? 'beats'
                    : 'does not beat'
                  : '–'}
              </td>
            </tr>
          </tbody>
        </table>
      </section>
    </div>
  );
}

export function ModelsPanel({ stage, models, drift, reports, promotion }: Props) {
  const all = metricNames(models);
  // The headline metrics in the table; the rest (market comparisons, counts) one click away.
  const metrics = all.filter((k) => METRIC_ORDER.includes(k));
  const more = all.filter((k) => !METRIC_ORDER.includes(k));
  const selected = models[stage];
  return (
    <div class="models">
      <div class="panel">
        <h3>Models</h3>
        {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard */}
        <section class="scroll-x" tabIndex={0} aria-label="Model comparison table">
          <table class="model-table">
            <caption class="sr-only">Champion and challenger models; the selected stage is marked</caption>
            <thead>
              <tr>
                <td />
                {STAGES.map((s) => (
                  <th scope="col" key={s} class={s === stage ? 'sel' : undefined} aria-current={s === stage}>
                    {s}
                    {s === stage ? <span class="badge"> selected</span> : null}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              <tr>
                <th scope="row">Version</th>
                {STAGES.map((s) => (
                  <td key={s} data-field={`${s}-version`} class={s === stage ? 'sel' : undefined}>
                    {models[s].state === 'error' ? (
                      <span class="muted">{(models[s] as { message: string }).message}</span>
                    ) : (
                      cell(models[s], (v) => v.version)
                    )}
                  </td>
                ))}
              </tr>
              <tr>
                <th scope="row">Run id</th>
                {STAGES.map((s) => (
                  <td key={s} class={s === stage ? 'sel mono' : 'mono'}>
                    {cell(models[s], (v) => shortRunId(v.run_id))}
                  </td>
                ))}
              </tr>
              <tr>
                <th scope="row">Created</th>
                {STAGES.map((s) => (
                  <td key={s} class={s === stage ? 'sel' : undefined}>
                    {cell(models[s], (v) => formatTimestamp(v.created_at))}
                  </td>
                ))}
              </tr>
              <MetricRows names={metrics} models={models} stage={stage} />
              <tr>
                <th scope="row">Opening line (same matches)</th>
                {STAGES.map((s) => (
                  <td key={s} class={s === stage ? 'sel num' : 'num'} data-field={`${s}-opening`}>
                    {cell(models[s], (v) => lineEdge(v, 'open'))}
                  </td>
                ))}
              </tr>
              <tr>
                <th scope="row">Closing line (same matches)</th>
                {STAGES.map((s) => (
                  <td key={s} class={s === stage ? 'sel num' : 'num'}>
                    {cell(models[s], (v) => lineEdge(v, 'close'))}
                  </td>
                ))}
              </tr>
            </tbody>
          </table>
        </section>
        {more.length > 0 ? (
          <details>
            <summary>More metrics ({more.length})</summary>
            {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard */}
            <section class="scroll-x" tabIndex={0} aria-label="More model metrics">
              <table class="model-table">
                <caption class="sr-only">More metrics of the champion and challenger</caption>
                <tbody>
                  <MetricRows names={more} models={models} stage={stage} />
                </tbody>
              </table>
            </section>
          </details>
        ) : null}
        {promotion ? (
          <>
            <h4>Promotion guard</h4>
            <PromotionGuard promotion={promotion} />
          </>
        ) : null}
        {selected.state === 'ok' ? (
          <details>
            <summary>
              {stage} details: {selected.value.model_name}, {selected.value.feature_names.length} features
            </summary>
            <p class="mono wrap">Run id: {selected.value.run_id}</p>
            <h4>Parameters</h4>
            <dl class="kv">
              {Object.entries(selected.value.params).map(([k, v]) => (
                <div key={k}>
                  <dt>{k}</dt>
                  <dd>{v}</dd>
                </div>
              ))}
            </dl>
            <h4>Features</h4>
            <p class="mono wrap">{selected.value.feature_names.join(', ')}</p>
          </details>
        ) : null}
      </div>
      <div class="panel" aria-live="polite">
        <h3>Monitoring</h3>
        {drift.state === 'loading' ? <p>Loading drift…</p> : null}
        {drift.state === 'error' ? <p class="error">Drift: {drift.message}</p> : null}
        {drift.state === 'ok' ? (
          drift.value.drift_score === null ? (
            <p data-testid="drift" data-reason={drift.value.no_score_reason ?? ''}>
              {drift.value.no_score_detail ?? 'No drift report yet.'}
            </p>
          ) : (
            <p data-testid="drift">
              Drift score <strong>{formatNumber(drift.value.drift_score, 2)}</strong>
              {drift.value.n_features !== undefined && drift.value.n_drifted !== undefined
                ? ` (${drift.value.n_drifted} of ${drift.value.n_features} features drifted)`
                : ''}
              {drift.value.generated_at ? `, computed ${formatTimestamp(drift.value.generated_at)}` : ''}.{' '}
              <meter min={0} max={1} low={0.2} high={0.5} optimum={0} value={drift.value.drift_score}>
                {formatNumber(drift.value.drift_score, 2)}
              </meter>
            </p>
          )
        ) : null}
        <h4>Reports</h4>
        {reports.state === 'loading' ? <p>Loading reports…</p> : null}
        {reports.state === 'error' ? <p class="error">Reports: {reports.message}</p> : null}
        {reports.state === 'ok' ? <ReportLinks list={reports.value} /> : null}
      </div>
    </div>
  );
}

function MetricRows({ names, models, stage }: { names: string[]; models: Props['models']; stage: Stage }) {
  return (
    <>
      {names.map((k) => (
        <tr key={k}>
          <th scope="row">{k}</th>
          {STAGES.map((s) => (
            <td key={s} class={s === stage ? 'sel num' : 'num'}>
              {cell(models[s], (v) => formatNumber(v.metrics[k]))}
            </td>
          ))}
        </tr>
      ))}
    </>
  );
}

function ReportLinks({ list }: { list: ReportEntry[] }) {
  if (list.length === 0) return <p>No reports yet.</p>;
  const latest = latestReports(list);
  return (
    <>
      <ul class="links">
        <li>
          {latest.drift ? <ReportLink r={latest.drift} label="Latest drift report" /> : 'No drift report yet'}
        </li>
        <li>
          {latest.quality ? (
            <ReportLink r={latest.quality} label="Latest data-quality report" />
          ) : (
            'No data-quality report yet'
          )}
        </li>
        {latest.performance ? (
          <li>
            <ReportLink r={latest.performance} label="Latest performance report" />
          </li>
        ) : null}
      </ul>
      {list.length > 2 ? (
        <details>
          <summary>All reports ({list.length})</summary>
          <ul class="links">
            {[...list]
              .sort((a, b) => b.filename.localeCompare(a.filename))
              .map((r) => (
                <li key={r.filename}>
                  <ReportLink r={r} label={r.filename} />
                </li>
              ))}
          </ul>
        </details>
      ) : null}
    </>
  );
}
