import type { Probabilities } from '../src/domain/index.js';

const OUTCOMES = ['home win', 'draw', 'away win'];

/** Reliability diagram per outcome (three panels) as a self-contained SVG. */
export function reliabilitySvg(
  series: Array<{ name: string; color: string; probs: Probabilities[] }>,
  labels: number[],
  bins = 10,
): string {
  const W = 300;
  const pad = 40;
  const plot = W - 2 * pad;
  const parts: string[] = [];
  const width = 3 * W;
  const height = W + 40;
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
  );
  for (let k = 0; k < 3; k++) {
    const ox = k * W + pad;
    const oy = pad;
    const x = (p: number) => ox + p * plot;
    const y = (p: number) => oy + (1 - p) * plot;
    parts.push(
      `<text x="${ox + plot / 2}" y="${oy - 14}" text-anchor="middle" font-size="13">${OUTCOMES[k]}</text>`,
      `<rect x="${ox}" y="${oy}" width="${plot}" height="${plot}" fill="none" stroke="#333"/>`,
      `<line x1="${x(0)}" y1="${y(0)}" x2="${x(1)}" y2="${y(1)}" stroke="#bbb" stroke-dasharray="4 3"/>`,
    );
    for (const t of [0, 0.2, 0.4, 0.6, 0.8, 1]) {
      parts.push(
        `<text x="${x(t)}" y="${oy + plot + 14}" text-anchor="middle">${t.toFixed(1)}</text>`,
        `<text x="${ox - 6}" y="${y(t) + 4}" text-anchor="end">${t.toFixed(1)}</text>`,
      );
    }
    parts.push(
      `<text x="${ox + plot / 2}" y="${oy + plot + 30}" text-anchor="middle">predicted probability</text>`,
      `<text x="${ox - 30}" y="${oy + plot / 2}" text-anchor="middle" transform="rotate(-90 ${ox - 30} ${oy + plot / 2})">observed frequency</text>`,
    );
    series.forEach((s, si) => {
      const sum = new Float64Array(bins);
      const hit = new Float64Array(bins);
      const cnt = new Float64Array(bins);
      s.probs.forEach((p, i) => {
        const b = Math.min(bins - 1, Math.floor(p[k] * bins));
        sum[b] += p[k];
        hit[b] += labels[i] === k ? 1 : 0;
        cnt[b]++;
      });
      const pts: string[] = [];
      for (let b = 0; b < bins; b++) {
        if (cnt[b] < 10) continue;
        const px = x(sum[b] / cnt[b]);
        const py = y(hit[b] / cnt[b]);
        pts.push(`${px.toFixed(1)},${py.toFixed(1)}`);
        const r = Math.max(1.5, Math.sqrt(cnt[b] / labels.length) * 18);
        parts.push(
          `<circle cx="${px.toFixed(1)}" cy="${py.toFixed(1)}" r="${r.toFixed(1)}" fill="${s.color}" fill-opacity="0.35" stroke="${s.color}"/>`,
        );
      }
      parts.push(`<polyline points="${pts.join(' ')}" fill="none" stroke="${s.color}" stroke-width="1.5"/>`);
      parts.push(
        `<rect x="${ox + 8}" y="${oy + 8 + si * 16}" width="10" height="10" fill="${s.color}"/>`,
        `<text x="${ox + 22}" y="${oy + 17 + si * 16}">${s.name}</text>`,
      );
    });
  }
  parts.push('</svg>');
  return parts.join('\n');
}
