import type { ComponentChildren } from 'preact';
import { formatNumber, type Histogram } from './drift.js';

const REFERENCE_COLOUR = '#4c78a8';
const CURRENT_COLOUR = '#f58518';

/** One decimal, for SVG coordinates. */
export const f1 = (x: number) => x.toFixed(1);

type Frame = { width: number; height: number; title: string };

/** The frame of every report chart: an accessible inline SVG (no script, no font, no network). */
export function Chart({ width, height, title, children }: Frame & { children: ComponentChildren }) {
  return (
    <svg
      class="chart"
      xmlns="http://www.w3.org/2000/svg"
      width={width}
      height={height}
      viewBox={`0 0 ${width} ${height}`}
      role="img"
      aria-label={title}
    >
      <title>{title}</title>
      {children}
    </svg>
  );
}

/** A chart frame saying there is nothing to draw. */
export function EmptyChart({ width, height, title, message }: Frame & { message: string }) {
  return (
    <Chart width={width} height={height} title={title}>
      <text x={width / 2} y={height / 2} text-anchor="middle" class="muted">
        {message}
      </text>
    </Chart>
  );
}

/** Reference vs current, bars as shares of each sample so that samples of any size compare. */
export function HistogramChart({ h, title }: { h: Histogram; title: string }) {
  const width = 520;
  const height = 200;
  const pad = { left: 44, right: 8, top: 22, bottom: 34 };
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  const n = h.labels.length;
  if (n === 0) return <EmptyChart width={width} height={height} title={title} message="no data" />;
  const ymax = Math.max(1e-9, ...h.reference, ...h.current);
  const slot = plotW / n;
  const barW = Math.max(1, (slot - 2) / 2);
  const y = (v: number) => pad.top + plotH - (v / ymax) * plotH;
  // Tick labels: every level for categorical charts, else first, middle and last edge.
  const ticks =
    h.edges.length === 0
      ? h.labels.map((l, i) => [pad.left + (i + 0.5) * slot, l] as const)
      : [0, Math.floor(n / 2), n].map((i) => [pad.left + i * slot, formatNumber(h.edges[i])] as const);
  return (
    <Chart width={width} height={height} title={title}>
      <line x1={pad.left} y1={pad.top + plotH} x2={width - pad.right} y2={pad.top + plotH} stroke="#999" />
      <line x1={pad.left} y1={pad.top} x2={pad.left} y2={pad.top + plotH} stroke="#999" />
      <text x={pad.left - 4} y={pad.top + 4} text-anchor="end" class="tick">
        {(ymax * 100).toFixed(0)}%
      </text>
      <text x={pad.left - 4} y={pad.top + plotH} text-anchor="end" class="tick">
        0
      </text>
      <rect x={pad.left + 4} y={4} width={10} height={10} fill={REFERENCE_COLOUR} />
      <text x={pad.left + 18} y={13} class="tick">
        reference
      </text>
      <rect x={pad.left + 90} y={4} width={10} height={10} fill={CURRENT_COLOUR} />
      <text x={pad.left + 104} y={13} class="tick">
        current
      </text>
      {h.labels.map((label, i) =>
        [h.reference[i], h.current[i]].map((v, k) => (
          <rect
            class={`bar ${k === 0 ? 'ref' : 'cur'}`}
            x={f1(pad.left + i * slot + 1 + k * barW)}
            y={f1(y(v))}
            width={f1(barW)}
            height={f1(pad.top + plotH - y(v))}
            fill={k === 0 ? REFERENCE_COLOUR : CURRENT_COLOUR}
          >
            <title>
              {label}: {(v * 100).toFixed(1)}%
            </title>
          </rect>
        )),
      )}
      {ticks.map(([x, label]) => (
        <text x={f1(x)} y={pad.top + plotH + 14} text-anchor="middle" class="tick">
          {label}
        </text>
      ))}
    </Chart>
  );
}

/** A horizontal bar chart of shares (0 … 1) as inline SVG, e.g. missing values per column. */
export function ShareBars({
  items,
  title,
}: {
  items: ReadonlyArray<{ label: string; share: number }>;
  title: string;
}) {
  const width = 640;
  const rowH = 16;
  const labelW = 220;
  const plotW = width - labelW - 60;
  const height = 12 + items.length * rowH + 8;
  return (
    <Chart width={width} height={height} title={title}>
      <line x1={labelW} y1={4} x2={labelW} y2={height - 4} stroke="#999" />
      {items.map((it, i) => {
        const y = 8 + i * rowH;
        const share = Math.max(0, Math.min(1, it.share));
        const w = Math.max(share > 0 ? 1.5 : 0, share * plotW);
        return [
          <text x={labelW - 6} y={y + 11} text-anchor="end" class="tick">
            {it.label}
          </text>,
          <rect
            class="bar"
            x={labelW}
            y={y + 2}
            width={f1(w)}
            height={rowH - 5}
            fill={share > 0.2 ? '#e45756' : CURRENT_COLOUR}
          >
            <title>
              {it.label}: {(share * 100).toFixed(1)}%
            </title>
          </rect>,
          <text x={labelW + w + 4} y={y + 11} class="tick">
            {(share * 100).toFixed(1)}%
          </text>,
        ];
      })}
    </Chart>
  );
}
