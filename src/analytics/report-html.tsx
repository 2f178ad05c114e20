// Building blocks of the self-contained HTML reports (inline CSS, no script, no external resource).
// Every string reaches the page as a text node or an attribute, so it is escaped by construction.
import type { ComponentChildren } from 'preact';
import { render } from 'preact-render-to-string';

const CSS = `
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;margin:24px;color:#222;max-width:1180px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
h3{font-size:14px;margin:0 0 4px}.muted{color:#666;fill:#666}.tick{font-size:10px;fill:#444}
table{border-collapse:collapse;margin:8px 0;font-size:13px}th,td{border:1px solid #ddd;padding:3px 8px;text-align:left}
th{background:#f4f4f4}td.num{text-align:right;font-variant-numeric:tabular-nums}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;font-weight:600}
.ok{background:#e3f4e3;color:#1d6b1d}.warn{background:#fff3d6;color:#8a5a00}.fail,.drift{background:#fde2e1;color:#9b1c1c}
.skip{background:#eee;color:#555}.grid{display:flex;flex-wrap:wrap;gap:16px}
.card{border:1px solid #e3e3e3;border-radius:6px;padding:8px;background:#fff}
.kpi{display:inline-block;margin:0 24px 8px 0}.kpi b{display:block;font-size:24px}.small{font-size:12px}
`;

/** A complete HTML document: `<!DOCTYPE html>`, the report stylesheet, `title` and `body`. */
export function renderReport(title: string, body: ComponentChildren): string {
  const doc = (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{title}</title>
        {/* A constant of this module, not data: the only raw markup of a report. */}
        <style dangerouslySetInnerHTML={{ __html: CSS }} />
      </head>
      <body>{body}</body>
    </html>
  );
  return `<!DOCTYPE html>\n${render(doc)}\n`;
}

/** A right-aligned numeric cell value (see {@link num}). */
interface NumCell {
  readonly num: string;
}

/** A table cell: any text or component (a `<td>`), or a {@link NumCell} (a right-aligned `<td class="num">`). */
type Cell = ComponentChildren | NumCell;

/** A table column: its header and the cell it shows for a row. */
export type Column<T> = readonly [header: string, cell: (row: T) => Cell];

const isNum = (c: Cell): c is NumCell =>
  typeof c === 'object' && c !== null && !Array.isArray(c) && 'num' in c;

/** A numeric cell rounded to `digits` decimals ("–" for null / non-finite); `suffix` e.g. `' %'`. */
export function num(x: number | null | undefined, digits = 3, suffix = ''): NumCell {
  if (x === null || x === undefined || !Number.isFinite(x)) return { num: '–' };
  return { num: `${Number(x.toFixed(digits))}${suffix}` };
}

/** `x` with `digits` decimals, "–" for null (text outside a table cell). */
export const fixed = (x: number | null, digits: number) => (x === null ? '–' : x.toFixed(digits));

/** A numeric cell holding text as is (e.g. "12 / 30"). */
export const numText = (text: string): NumCell => ({ num: text });

export function Table({
  header,
  rows,
}: {
  header: readonly string[];
  rows: ReadonlyArray<ReadonlyArray<Cell>>;
}) {
  return (
    <table>
      <thead>
        <tr>
          {header.map((h) => (
            <th>{h}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr>{r.map((c) => (isNum(c) ? <td class="num">{c.num}</td> : <td>{c}</td>))}</tr>
        ))}
      </tbody>
    </table>
  );
}

/** A {@link Table} of `rows` with one cell per column. */
export function ColumnTable<T>({ columns, rows }: { columns: readonly Column<T>[]; rows: readonly T[] }) {
  return <Table header={columns.map((c) => c[0])} rows={rows.map((r) => columns.map((c) => c[1](r)))} />;
}

type BadgeKind = 'ok' | 'warn' | 'fail' | 'drift' | 'skip';

export function Badge({ kind, children }: { kind: BadgeKind; children: ComponentChildren }) {
  return <span class={`badge ${kind}`}>{children}</span>;
}

/** A headline figure: caption above, value in bold. */
export function Kpi({ label, id, children }: { label: string; id?: string; children: ComponentChildren }) {
  return (
    <div class="kpi">
      {label}
      <b id={id}>{children}</b>
    </div>
  );
}
