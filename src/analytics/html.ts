/** Shared HTML helpers for the self-contained reports: inline CSS only, no script, no external resource. */

export function escapeHtml(s: string): string {
  return s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

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
.kpi{display:inline-block;margin:0 24px 8px 0}.kpi b{display:block;font-size:24px}
`;

/** A complete HTML document with the report stylesheet inlined. */
export function htmlPage(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><style>${CSS}</style></head>
<body>
${body}
</body></html>
`;
}

/** A table from a header and rows of pre-escaped cells (use {@link escapeHtml} on text). */
export function table(header: readonly string[], rows: ReadonlyArray<ReadonlyArray<string>>): string {
  const th = header.map((h) => `<th>${escapeHtml(h)}</th>`).join('');
  const tr = rows.map(
    (r) => `<tr>${r.map((c) => (c.startsWith('<td') ? c : `<td>${c}</td>`)).join('')}</tr>`,
  );
  return `<table><thead><tr>${th}</tr></thead><tbody>${tr.join('')}</tbody></table>`;
}

/** A right-aligned numeric cell; empty for null. */
export function numCell(x: number | null | undefined, digits = 3): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '<td class="num">–</td>';
  return `<td class="num">${Number(x.toFixed(digits))}</td>`;
}

export function badge(kind: 'ok' | 'warn' | 'fail' | 'drift' | 'skip', text: string): string {
  return `<span class="badge ${kind}">${escapeHtml(text)}</span>`;
}
