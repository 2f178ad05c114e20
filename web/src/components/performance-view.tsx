import { useState } from 'preact/hooks';
import { formatNumber, formatTimestamp } from '../lib/format.js';
import type { PerformanceSummary } from '../lib/types.js';

type Group = PerformanceSummary['groups'][number];
type Point = Group['series'][number];

const MODEL = '#1f5f99';
const OPENING = '#c46200';
const CLOSING = '#2e7d32';
/** Weeks in the rolling mean of the chart (weighted by matches). */
const ROLLING_WEEKS = 4;

/** Rolling mean over the last `weeks` weekly points of one series, weighted by each week's matches. */
function rollingSeries(
  series: readonly Point[],
  value: (p: Point) => number | null,
  count: (p: Point) => number,
  weeks = ROLLING_WEEKS,
): Array<number | null> {
  return series.map((_, i) => {
    let sum = 0;
    let n = 0;
    for (let j = Math.max(0, i - weeks + 1); j <= i; j++) {
      const v = value(series[j]);
      const c = count(series[j]);
      if (v === null || !c) continue;
      sum += v * c;
      n += c;
    }
    return n ? sum / n : null;
  });
}

function edgeText(edge: number | null): string {
  if (edge === null || !Number.isFinite(edge)) return '–';
  return `${edge > 0 ? '+' : ''}${edge.toFixed(4)}`;
}

function OverTime({ group }: { group: Group }) {
  const s = group.series;
  if (s.length === 0) return <p>No finished served match in {group.region_name} yet.</p>;
  const lines = [
    {
      name: 'served',
      colour: MODEL,
      v: rollingSeries(
        s,
        (p) => p.log_loss,
        (p) => p.n,
      ),
    },
    {
      name: 'opening line',
      colour: OPENING,
      v: rollingSeries(
        s,
        (p) => p.opening_log_loss,
        (p) => p.n_opening,
      ),
    },
    {
      name: 'closing line',
      colour: CLOSING,
      v: rollingSeries(
        s,
        (p) => p.closing_log_loss,
        (p) => p.n_closing,
      ),
    },
  ];
  const all = lines.flatMap((l) => l.v.filter((x): x is number => x !== null));
  const lo = Math.min(...all);
  const hi = Math.max(...all);
  const span = hi - lo || 0.01;
  const W = 560;
  const H = 200;
  const L = 48;
  const T = 10;
  const pw = W - L - 8;
  const ph = H - T - 28;
  const x = (i: number) => L + (s.length === 1 ? pw / 2 : (i / (s.length - 1)) * pw);
  const y = (v: number) => T + ph - ((v - lo) / span) * ph;
  const path = (v: Array<number | null>) => {
    let d = '';
    let pen = false;
    v.forEach((p, i) => {
      if (p === null) {
        pen = false;
        return;
      }
      d += `${pen ? 'L' : 'M'}${x(i).toFixed(1)},${y(p).toFixed(1)}`;
      pen = true;
    });
    return d;
  };
  return (
    <figure class="perf-chart">
      <svg
        viewBox={`0 0 ${W} ${H}`}
        width="100%"
        role="img"
        aria-label={`Rolling ${ROLLING_WEEKS}-week log loss in ${group.region_name}: served predictions against the opening and closing lines`}
        data-testid="perf-over-time"
      >
        <line x1={L} y1={T + ph} x2={W - 8} y2={T + ph} stroke="#888" />
        <line x1={L} y1={T} x2={L} y2={T + ph} stroke="#888" />
        <text x={L - 4} y={T + 8} text-anchor="end" font-size="10">
          {hi.toFixed(3)}
        </text>
        <text x={L - 4} y={T + ph} text-anchor="end" font-size="10">
          {lo.toFixed(3)}
        </text>
        <text x={L} y={H - 8} font-size="10">
          {s[0].period_start.slice(0, 10)}
        </text>
        <text x={W - 8} y={H - 8} text-anchor="end" font-size="10">
          {s[s.length - 1].period_start.slice(0, 10)}
        </text>
        {/* Served last, so that it is drawn on top of the lines. */}
        {[...lines].reverse().map((l) => (
          <path
            key={l.name}
            d={path(l.v)}
            fill="none"
            stroke={l.colour}
            stroke-width="2"
            data-line={l.name}
          />
        ))}
      </svg>
      <figcaption>
        Rolling {ROLLING_WEEKS}-week log loss (lower is better):{' '}
        {lines.map((l) => (
          <span key={l.name} class="legend">
            <svg width="14" height="10" aria-hidden="true">
              <rect width="14" height="10" fill={l.colour} />
            </svg>{' '}
            {l.name}{' '}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}

/** Predicted probability against observed frequency per decile; the diagonal is perfect calibration. */
function ReliabilityDiagram({ group }: { group: Group }) {
  const S = 220;
  const P = 30;
  const w = S - 2 * P;
  const x = (v: number) => P + v * w;
  const y = (v: number) => P + w - v * w;
  const bins = group.reliability.filter(
    (b) => b.n > 0 && b.mean_predicted !== null && b.observed_frequency !== null,
  );
  const maxN = Math.max(1, ...bins.map((b) => b.n));
  return (
    <figure class="perf-chart">
      <svg
        viewBox={`0 0 ${S} ${S}`}
        width={S}
        role="img"
        aria-label={`Reliability diagram of the served predictions in ${group.region_name}`}
        data-testid="perf-reliability"
      >
        <rect x={P} y={P} width={w} height={w} fill="none" stroke="#888" />
        <line x1={x(0)} y1={y(0)} x2={x(1)} y2={y(1)} stroke="#aaa" stroke-dasharray="4 3" />
        {bins.map((b) => (
          <circle
            key={b.lower}
            cx={x(b.mean_predicted as number)}
            cy={y(b.observed_frequency as number)}
            r={2 + 5 * Math.sqrt(b.n / maxN)}
            fill={MODEL}
            fill-opacity="0.8"
            data-bin={b.lower}
          >
            <title>
              {`${b.lower.toFixed(1)}–${b.upper.toFixed(1)}: predicted ${formatNumber(b.mean_predicted)}, observed ${formatNumber(b.observed_frequency)} (${b.n})`}
            </title>
          </circle>
        ))}
        <text x={S / 2} y={S - 6} text-anchor="middle" font-size="10">
          predicted probability
        </text>
        <text x={10} y={S / 2} text-anchor="middle" font-size="10" transform={`rotate(-90 10 ${S / 2})`}>
          observed frequency
        </text>
      </svg>
      <figcaption>
        Calibration error {formatNumber(group.calibration_error, 4)} over {group.n} matches (three outcomes
        each).
      </figcaption>
    </figure>
  );
}

/**
 * The walk-forward figures in one line, each with what it covers: the count is the number of rows the
 * log loss is computed on, the edge names its line and the matches that have it.
 */
function BacktestLine({ all }: { all: Group }) {
  return (
    <p class="muted" data-testid="perf-backtest">
      Backtest (walk-forward, out of sample, not served): <span data-field="bt-n">{all.n}</span> matches
      kicking off {all.first_kickoff?.slice(0, 10) ?? '–'} → {all.last_kickoff?.slice(0, 10) ?? '–'}, early
      horizon (odds observed by kick-off − 48 h): log loss{' '}
      <span data-field="bt-log-loss">{formatNumber(all.log_loss, 4)}</span>; on the{' '}
      <span data-field="bt-open-n">{all.opening.n}</span> with an opening line, model{' '}
      {formatNumber(all.opening.model_log_loss, 4)} vs line {formatNumber(all.opening.line_log_loss, 4)}{' '}
      (power de-margined), edge{' '}
      <span data-field="bt-edge-opening">{edgeText(all.opening.edge_log_loss)}</span>.
    </p>
  );
}

/** Realised performance of what was served: per region, against both market lines, over time. */
export function PerformanceView({ summary }: { summary: PerformanceSummary }) {
  const [region, setRegion] = useState('all');
  if (!summary.available || summary.groups.length === 0) {
    return (
      <p data-testid="perf-empty">
        No realised figures yet: they appear once a served prediction's match has finished and the pipeline
        has run.
      </p>
    );
  }
  const group = summary.groups.find((g) => g.region_name === region) ?? summary.groups[0];
  const windowText =
    summary.window.matches > 0
      ? `last ${summary.window.matches} finished served matches per region`
      : 'every finished served match';
  return (
    <div class="performance" data-testid="performance">
      <p>
        Each finished match is scored with the prediction served before its kick-off; window: {windowText}; as
        of {formatTimestamp(summary.as_of)}. Edge = line log loss − served log loss (positive: the served
        probabilities beat the line).
      </p>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard */}
      <section class="scroll-x" tabIndex={0} aria-label="Realised performance per region">
        <table class="perf-table">
          <caption class="sr-only">
            Realised log loss per region against the opening and closing lines
          </caption>
          <thead>
            <tr>
              <th scope="col">Region</th>
              <th scope="col">Matches</th>
              <th scope="col">Log loss</th>
              <th scope="col">RPS</th>
              <th scope="col">Opening line</th>
              <th scope="col">Edge vs opening</th>
              <th scope="col">Closing line</th>
              <th scope="col">Edge vs closing</th>
              <th scope="col">Calibration error</th>
            </tr>
          </thead>
          <tbody>
            {summary.groups.map((g) => (
              <tr key={g.region_name} data-region={g.region_name}>
                <th scope="row">{g.region_name}</th>
                <td class="num">{g.n}</td>
                <td class="num">{formatNumber(g.log_loss, 4)}</td>
                <td class="num">{formatNumber(g.rps, 4)}</td>
                <td class="num">{formatNumber(g.opening.line_log_loss, 4)}</td>
                <td
                  class={`num ${(g.opening.edge_log_loss ?? 0) > 0 ? 'pos' : 'neg'}`}
                  data-field="edge-opening"
                >
                  {edgeText(g.opening.edge_log_loss)}
                </td>
                <td class="num">{formatNumber(g.closing.line_log_loss, 4)}</td>
                <td class={`num ${(g.closing.edge_log_loss ?? 0) > 0 ? 'pos' : 'neg'}`}>
                  {edgeText(g.closing.edge_log_loss)}
                </td>
                <td class="num">{formatNumber(g.calibration_error, 4)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <label>
        Region{' '}
        <select
          value={group.region_name}
          onChange={(e) => setRegion((e.currentTarget as HTMLSelectElement).value)}
          data-testid="perf-region"
        >
          {summary.groups.map((g) => (
            <option key={g.region_name} value={g.region_name}>
              {g.region_name}
            </option>
          ))}
        </select>
      </label>
      <div class="perf-charts">
        <OverTime group={group} />
        <ReliabilityDiagram group={group} />
      </div>
      {summary.backtest?.groups[0] ? <BacktestLine all={summary.backtest.groups[0]} /> : null}
    </div>
  );
}
