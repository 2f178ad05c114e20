import assert from 'node:assert/strict';
import { test } from 'node:test';
import { h } from 'preact';
import type { DataQualityReport } from '../../src/analytics/data-quality.js';
import { renderDataQualityReport } from '../../src/analytics/data-quality-html.js';
import { num, renderReport, Table } from '../../src/analytics/report-html.js';

const HOSTILE = '<img src=x onerror=alert(1)><td>"&';

test('report text is escaped by construction: a hostile string never becomes markup', () => {
  const r: DataQualityReport = {
    generated_at: HOSTILE,
    as_of: '2026-01-01T00:00:00Z',
    status: 'warn',
    checks: [
      {
        id: 'x',
        title: HOSTILE,
        status: 'warn',
        count: 1,
        total: 2,
        detail: HOSTILE,
        example_header: [HOSTILE],
        examples: [[HOSTILE, '<td class="num">1</td>']],
        omitted: 0,
      },
    ],
    missing: [{ source: HOSTILE, column: HOSTILE, missing: 1, total: 4, share: 0.25 }],
    limits: {} as DataQualityReport['limits'],
  };
  const html = renderDataQualityReport(r);
  assert.doesNotMatch(html, /<img/);
  // A cell that looks like a <td> is text, not a second cell (the old renderer passed it through).
  assert.match(html, /<td>&lt;td class=&quot;num&quot;>1&lt;\/td><\/td>/);
  assert.ok(html.startsWith('<!DOCTYPE html>\n<html lang="en">'));
});

test('Table: numeric cells are right-aligned, missing numbers show a dash', () => {
  const html = renderReport('t', h(Table, { header: ['a', 'b'], rows: [[num(0.12345, 3), num(null)]] }));
  assert.match(html, /<td class="num">0\.123<\/td><td class="num">–<\/td>/);
});
