import type { DataQualityReport } from './data-quality.js';
import { badge, escapeHtml, htmlPage, table } from './html.js';
import { shareBarsSvg } from './svg.js';

/** The self-contained data-quality report: overall status and one section per check. */
export function renderDataQualityReport(r: DataQualityReport): string {
  const summary = table(
    ['check', 'status', 'problems', 'examined'],
    r.checks.map((c) => [
      `<a href="#${c.id}">${escapeHtml(c.title)}</a>`,
      badge(c.status, c.status),
      `<td class="num">${c.count}</td>`,
      `<td class="num">${c.total}</td>`,
    ]),
  );
  const sections = r.checks
    .map(
      (c) =>
        `<h2 id="${c.id}">${escapeHtml(c.title)} ${badge(c.status, c.status)}</h2><p>${escapeHtml(c.detail)}</p>` +
        (c.examples.length
          ? `${table(
              c.example_header,
              c.examples.map((row) => row.map(escapeHtml)),
            )}${c.omitted > 0 ? `<p class="muted">… and ${c.omitted} more.</p>` : ''}`
          : ''),
    )
    .join('\n');
  const missing = table(
    ['source', 'column', 'missing', 'total', 'share'],
    r.missing.map((m) => [
      escapeHtml(m.source),
      escapeHtml(m.column),
      `<td class="num">${m.missing}</td>`,
      `<td class="num">${m.total}</td>`,
      `<td class="num">${(m.share * 100).toFixed(1)} %</td>`,
    ]),
  );
  const body = `
<h1>Data quality report ${badge(r.status, r.status)}</h1>
<div class="muted">Generated ${escapeHtml(r.generated_at)} · as-of ${escapeHtml(r.as_of)}</div>
<h2>Summary</h2>
${summary}
${sections}
<h2 id="missing">Missing values per column</h2>
${shareBarsSvg(
  r.missing.map((m) => ({ label: `${m.source}: ${m.column}`, share: m.share })),
  { title: 'Share of missing values per column' },
)}
${missing}
`;
  return htmlPage(`Data quality report ${r.generated_at}`, body);
}
