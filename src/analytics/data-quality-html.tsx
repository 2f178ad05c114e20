import type { DataQualityReport } from './data-quality.js';
import { Badge, type Column, ColumnTable, num, numText, renderReport, Table } from './report-html.js';
import { ShareBars } from './svg.js';

const CHECK_COLUMNS: readonly Column<DataQualityReport['checks'][number]>[] = [
  ['check', (c) => <a href={`#${c.id}`}>{c.title}</a>],
  ['status', (c) => <Badge kind={c.status}>{c.status}</Badge>],
  ['problems', (c) => numText(String(c.count))],
  ['examined', (c) => numText(String(c.total))],
];

const MISSING_COLUMNS: readonly Column<DataQualityReport['missing'][number]>[] = [
  ['source', (m) => m.source],
  ['column', (m) => m.column],
  ['missing', (m) => numText(String(m.missing))],
  ['total', (m) => numText(String(m.total))],
  ['share', (m) => num(m.share * 100, 1, ' %')],
];

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
    <ColumnTable columns={CHECK_COLUMNS} rows={r.checks} />,
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
    <ColumnTable columns={MISSING_COLUMNS} rows={r.missing} />,
  ]);
}
