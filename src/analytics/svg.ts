import { formatNumber, type Histogram } from './drift.js';
import { escapeHtml } from './html.js';

export const REFERENCE_COLOUR = '#4c78a8';
export const CURRENT_COLOUR = '#f58518';

export interface SvgOptions {
  /** Default `520`. */
  width?: number;
  /** Default `200`. */
  height?: number;
  /** Accessible title of the chart. */
  title: string;
}

/**
 * A reference-vs-current histogram as inline SVG (no script, no font, no network): bars side by side
 * per bin, heights as shares of each sample, so samples of different sizes compare.
 */
export function histogramSvg(h: Histogram, options: SvgOptions): string {
  const width = options.width ?? 520;
  const height = options.height ?? 200;
  const pad = { left: 44, right: 8, top: 22, bottom: 34 };
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  const n = h.labels.length;
  const title = escapeHtml(options.title);
  if (n === 0) {
    return `<svg class="chart" xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" role="img" aria-label="${title}"><title>${title}</title><text x="${width / 2}" y="${height / 2}" text-anchor="middle" class="muted">no data</text></svg>`;
  }
  const ymax = Math.max(1e-9, ...h.reference, ...h.current);
  const slot = plotW / n;
  const barW = Math.max(1, (slot - 2) / 2);
  const y = (v: number) => pad.top + plotH - (v / ymax) * plotH;
  const parts: string[] = [];
  parts.push(
    `<svg class="chart" xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${title}">`,
    `<title>${title}</title>`,
    `<line x1="${pad.left}" y1="${pad.top + plotH}" x2="${width - pad.right}" y2="${pad.top + plotH}" stroke="#999"/>`,
    `<line x1="${pad.left}" y1="${pad.top}" x2="${pad.left}" y2="${pad.top + plotH}" stroke="#999"/>`,
    `<text x="${pad.left - 4}" y="${pad.top + 4}" text-anchor="end" class="tick">${(ymax * 100).toFixed(0)}%</text>`,
    `<text x="${pad.left - 4}" y="${pad.top + plotH}" text-anchor="end" class="tick">0</text>`,
    `<rect x="${pad.left + 4}" y="4" width="10" height="10" fill="${REFERENCE_COLOUR}"/><text x="${pad.left + 18}" y="13" class="tick">reference</text>`,
    `<rect x="${pad.left + 90}" y="4" width="10" height="10" fill="${CURRENT_COLOUR}"/><text x="${pad.left + 104}" y="13" class="tick">current</text>`,
  );
  for (let i = 0; i < n; i++) {
    const x0 = pad.left + i * slot + 1;
    for (const [k, v, colour] of [
      [0, h.reference[i], REFERENCE_COLOUR],
      [1, h.current[i], CURRENT_COLOUR],
    ] as const) {
      const top = y(v);
      parts.push(
        `<rect class="bar ${k === 0 ? 'ref' : 'cur'}" x="${(x0 + k * barW).toFixed(1)}" y="${top.toFixed(1)}" width="${barW.toFixed(1)}" height="${(pad.top + plotH - top).toFixed(1)}" fill="${colour}"><title>${escapeHtml(h.labels[i])}: ${(v * 100).toFixed(1)}%</title></rect>`,
      );
    }
  }
  // Tick labels: every level for categorical charts, else first, middle and last edge.
  const ticks =
    h.edges.length === 0
      ? h.labels.map((l, i) => [pad.left + (i + 0.5) * slot, l] as const)
      : [0, Math.floor(n / 2), n].map((i) => [pad.left + i * slot, formatNumber(h.edges[i])] as const);
  for (const [x, label] of ticks) {
    parts.push(
      `<text x="${x.toFixed(1)}" y="${pad.top + plotH + 14}" text-anchor="middle" class="tick">${escapeHtml(label)}</text>`,
    );
  }
  parts.push('</svg>');
  return parts.join('');
}

/** A horizontal bar chart of shares (0 … 1) as inline SVG, e.g. missing values per column. */
export function shareBarsSvg(
  items: ReadonlyArray<{ label: string; share: number }>,
  options: { title: string; width?: number },
): string {
  const width = options.width ?? 640;
  const rowH = 16;
  const labelW = 220;
  const plotW = width - labelW - 60;
  const height = 12 + items.length * rowH + 8;
  const title = escapeHtml(options.title);
  const parts = [
    `<svg class="chart" xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${title}"><title>${title}</title>`,
    `<line x1="${labelW}" y1="4" x2="${labelW}" y2="${height - 4}" stroke="#999"/>`,
  ];
  items.forEach((it, i) => {
    const y = 8 + i * rowH;
    const share = Math.max(0, Math.min(1, it.share));
    const w = Math.max(share > 0 ? 1.5 : 0, share * plotW);
    parts.push(
      `<text x="${labelW - 6}" y="${y + 11}" text-anchor="end" class="tick">${escapeHtml(it.label)}</text>`,
      `<rect class="bar" x="${labelW}" y="${y + 2}" width="${w.toFixed(1)}" height="${rowH - 5}" fill="${share > 0.2 ? '#e45756' : CURRENT_COLOUR}"><title>${escapeHtml(it.label)}: ${(share * 100).toFixed(1)}%</title></rect>`,
      `<text x="${labelW + w + 4}" y="${y + 11}" class="tick">${(share * 100).toFixed(1)}%</text>`,
    );
  });
  parts.push('</svg>');
  return parts.join('');
}
