import type { DataQualityReport } from './data-quality.js';
import { Badge, num, numText, renderReport, Table } from './report-html.js';
import { ShareBars } from './svg.js';

/** The self-contained data-quality report: overall status and one section per check. */
export function renderDataQualityReport(r: DataQualityReport): string {
  return renderReport(`Data quality report ${r.generated_at}`, [
    <h1>
      Data quality report <Badge kind={r.status}>{r.status}</Badge>
    </h1>,
    <div class="muted">
      Generated {r.generated_at} · as-of {r.as_of}
    </div>,
    <h2>Summary</h2>,
    <Table
      header={['check', 'status', 'problems', 'examined']}
      rows={r.checks.map((c) => [
        <a href={`#${c.id}`}>{c.title}</a>,
        <Badge kind={c.status}>{c.status}</Badge>,
        numText(String(c.count)),
        numText(String(c.total)),
      ])}
    />,
    ...r.checks.flatMap((c) => [
      <h2 id={c.id}>
        {c.title} <Badge kind={c.status}>{c.status}</Badge>
      </h2>,
      <p>{c.detail}</p>,
      c.examples.length > 0 ? <Table header={c.example_header} rows={c.examples} /> : null,
      c.examples.length > 0 && c.omitted > 0 ? <p class="muted">… and {c.omitted} more.</p> : null,
    ]),
    <h2 id="missing">Missing values per column</h2>,
    <ShareBars
      items={r.missing.map((m) => ({ label: `${m.source}: ${m.column}`, share: m.share }))}
      title="Share of missing values per column"
    />,
    <Table
      header={['source', 'column', 'missing', 'total', 'share']}
      rows={r.missing.map((m) => [
        m.source,
        m.column,
        numText(String(m.missing)),
        numText(String(m.total)),
        num(m.share * 100, 1, ' %'),
      ])}
    />,
  ]);
}
