import type { PerformanceSummary } from '../schemas/index.js';
import type { PerformanceGroup, PeriodPoint, ReliabilityBin } from './performance.js';
import { Badge, type Column, ColumnTable, fixed, num, numText, renderReport } from './report-html.js';
import { Chart, EmptyChart, f1 } from './svg.js';

const MODEL = '#4c78a8';
const OPENING = '#f58518';
const CLOSING = '#54a24b';

function EdgeBadge({ edge }: { edge: number | null }) {
  if (edge === null) return <Badge kind="skip">no line</Badge>;
  return <Badge kind={edge > 0 ? 'ok' : 'fail'}>{`${edge > 0 ? '+' : ''}${edge.toFixed(4)}`}</Badge>;
}

const GROUP_COLUMNS: readonly Column<PerformanceGroup>[] = [
  ['region', (g) => g.region_name],
  ['n', (g) => numText(String(g.n))],
  ['log loss', (g) => num(g.log_loss, 4)],
  ['RPS', (g) => num(g.rps, 4)],
  ['Brier', (g) => num(g.brier, 4)],
  ['accuracy', (g) => num(g.accuracy, 3)],
  ['opening line (n)', (g) => numText(`${fixed(g.opening.line_log_loss, 4)} (${g.opening.n})`)],
  ['edge vs opening', (g) => <EdgeBadge edge={g.opening.edge_log_loss} />],
  ['closing line (n)', (g) => numText(`${fixed(g.closing.line_log_loss, 4)} (${g.closing.n})`)],
  ['edge vs closing', (g) => <EdgeBadge edge={g.closing.edge_log_loss} />],
  ['calibration error', (g) => num(g.calibration_error, 4)],
  ['last kick-off', (g) => g.last_kickoff?.slice(0, 10) ?? '–'],
];

/** Predicted probability against observed frequency per decile; the diagonal is perfect calibration. */
function ReliabilityChart({ bins, title }: { bins: readonly ReliabilityBin[]; title: string }) {
  const size = 260;
  const pad = 34;
  const plot = size - 2 * pad;
  const x = (v: number) => pad + v * plot;
  const y = (v: number) => pad + plot - v * plot;
  const pts = bins.flatMap((b) =>
    b.n > 0 && b.mean_predicted !== null && b.observed_frequency !== null
      ? [{ ...b, p: b.mean_predicted, o: b.observed_frequency }]
      : [],
  );
  const maxN = Math.max(1, ...pts.map((b) => b.n));
  const path = pts.map((b, i) => `${i ? 'L' : 'M'}${f1(x(b.p))},${f1(y(b.o))}`).join('');
  return (
    <Chart width={size} height={size} title={title}>
      <rect x={pad} y={pad} width={plot} height={plot} fill="none" stroke="#999" />
      <line x1={x(0)} y1={y(0)} x2={x(1)} y2={y(1)} stroke="#bbb" stroke-dasharray="4 3" />
      {path ? <path d={path} fill="none" stroke={MODEL} /> : null}
      {pts.map((b) => (
        <circle
          cx={f1(x(b.p))}
          cy={f1(y(b.o))}
          r={f1(2 + 5 * Math.sqrt(b.n / maxN))}
          fill={MODEL}
          fill-opacity="0.8"
        >
          <title>
            {`${b.lower.toFixed(1)}–${b.upper.toFixed(1)}: predicted ${b.p.toFixed(3)}, observed ${b.o.toFixed(3)}, n ${b.n}`}
          </title>
        </circle>
      ))}
      <text x={size / 2} y={size - 6} text-anchor="middle" class="tick">
        predicted probability
      </text>
      <text x={10} y={size / 2} text-anchor="middle" class="tick" transform={`rotate(-90 10 ${size / 2})`}>
        observed frequency
      </text>
      <text x={pad} y={pad + plot + 12} text-anchor="middle" class="tick">
        0
      </text>
      <text x={pad + plot} y={pad + plot + 12} text-anchor="middle" class="tick">
        1
      </text>
    </Chart>
  );
}

/** Weekly log loss of the served probabilities and of both lines. */
function SeriesChart({ series, title }: { series: readonly PeriodPoint[]; title: string }) {
  const width = 640;
  const height = 220;
  const pad = { left: 44, right: 10, top: 22, bottom: 30 };
  if (series.length === 0) {
    return <EmptyChart width={width} height={height} title={title} message="no finished served match yet" />;
  }
  const values = series.flatMap((p) =>
    [p.log_loss, p.opening_log_loss, p.closing_log_loss].filter((v): v is number => v !== null),
  );
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const span = Math.max(1e-6, hi - lo);
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  const x = (i: number) => pad.left + (series.length === 1 ? plotW / 2 : (i / (series.length - 1)) * plotW);
  const y = (v: number) => pad.top + plotH - ((v - lo) / span) * plotH;
  // A missing week lifts the pen: the next point starts a new segment.
  const line = (get: (p: PeriodPoint) => number | null, colour: string) => {
    let d = '';
    series.forEach((p, i) => {
      const v = get(p);
      if (v !== null) d += `${i > 0 && get(series[i - 1]) !== null ? 'L' : 'M'}${f1(x(i))},${f1(y(v))}`;
    });
    return d ? <path d={d} fill="none" stroke={colour} stroke-width="1.5" /> : null;
  };
  const legend = [
    [MODEL, 'served'],
    [OPENING, 'opening line'],
    [CLOSING, 'closing line'],
  ] as const;
  return (
    <Chart width={width} height={height} title={title}>
      {legend.map(([c, l], i) => [
        <rect x={pad.left + i * 110} y={4} width={10} height={10} fill={c} />,
        <text x={pad.left + 14 + i * 110} y={13} class="tick">
          {l}
        </text>,
      ])}
      <line x1={pad.left} y1={pad.top + plotH} x2={width - pad.right} y2={pad.top + plotH} stroke="#999" />
      <text x={pad.left - 4} y={pad.top + 4} text-anchor="end" class="tick">
        {hi.toFixed(2)}
      </text>
      <text x={pad.left - 4} y={pad.top + plotH} text-anchor="end" class="tick">
        {lo.toFixed(2)}
      </text>
      <text x={pad.left} y={height - 8} class="tick">
        {series[0].period_start.slice(0, 10)}
      </text>
      <text x={width - pad.right} y={height - 8} text-anchor="end" class="tick">
        {series[series.length - 1].period_start.slice(0, 10)}
      </text>
      {line((p) => p.opening_log_loss, OPENING)}
      {line((p) => p.closing_log_loss, CLOSING)}
      {line((p) => p.log_loss, MODEL)}
    </Chart>
  );
}

const RELIABILITY_COLUMNS: readonly Column<ReliabilityBin>[] = [
  ['predicted', (b) => `${b.lower.toFixed(1)}–${b.upper.toFixed(1)}`],
  ['n', (b) => numText(String(b.n))],
  ['mean predicted', (b) => num(b.mean_predicted, 3)],
  ['observed', (b) => num(b.observed_frequency, 3)],
];

/** The self-contained HTML performance report (inline CSS and SVG; no script, no external resource). */
export function renderPerformanceReport(s: Omit<PerformanceSummary, 'available'>): string {
  const all = s.groups[0];
  const windowText = `${s.window.matches > 0 ? `last ${s.window.matches} finished served matches per group` : 'every finished served match'}${s.window.days > 0 ? `, kick-off within ${s.window.days} days of as-of` : ''}`;
  const kpi = (value: string | number, label: string) => (
    <span class="kpi">
      <b>{value}</b>
      {label}
    </span>
  );
  return renderReport(`matchcast performance ${s.as_of}`, [
    <h1>Realised performance of the served predictions</h1>,
    <p class="muted">
      as of {s.as_of} · generated {s.generated_at} · window: {windowText} · lines de-margined ({s.demargin})
    </p>,
    <div>
      {kpi(all.n, 'matches in window')}
      {kpi(fixed(all.log_loss, 4), 'log loss')}
      {kpi(fixed(all.opening.edge_log_loss, 4), 'edge vs opening')}
      {kpi(fixed(all.closing.edge_log_loss, 4), 'edge vs closing')}
      {kpi(s.n_unserved_finished, 'finished, nothing served')}
    </div>,
    <p class="muted">
      Each finished match is scored with the prediction that was served before its kick-off (the newest
      publication before it). Edge = line log loss − served log loss on the matches that have the line:
      positive means the served probabilities beat the line.
    </p>,
    <h2>By region (window)</h2>,
    <ColumnTable columns={GROUP_COLUMNS} rows={s.groups} />,
    <h2>Over time (weekly log loss, all history)</h2>,
    <div class="grid">
      {s.groups.map((g) => (
        <div class="card">
          <h3>{g.region_name}</h3>
          <SeriesChart series={g.series} title={`weekly log loss, ${g.region_name}`} />
        </div>
      ))}
    </div>,
    <h2>Reliability (window, three outcomes pooled)</h2>,
    <div class="grid">
      <div class="card">
        <ReliabilityChart bins={all.reliability} title="reliability, all regions" />
      </div>
      <div class="card">
        <ColumnTable columns={RELIABILITY_COLUMNS} rows={all.reliability} />
      </div>
    </div>,
    ...(s.backtest
      ? [
          <h2>
            Backtest (walk-forward, NOT served) <Badge kind="skip">backtest</Badge>
          </h2>,
          <p class="muted">
            Out-of-sample predictions of walk-forward folds over the past; shown apart and never mixed into
            the served figures above.
          </p>,
          <ColumnTable columns={GROUP_COLUMNS} rows={s.backtest.groups} />,
        ]
      : []),
  ]);
}
