// Streamed exports: 45k rows in both formats hold the same content, leave in bounded chunks, and the
// Parquet file is one row group per chunk; a card's edges come from the prices its prediction used.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parquetMetadata } from 'hyparquet';
import type { AnalystRow } from '../../src/analytics/analyst-columns.js';
import { BET_EXPORT_COLUMNS } from '../../src/analytics/analyst-columns.js';
import { type AnalystData, exportRows } from '../../src/analytics/analyst-data.js';
import { csvChunks, EXPORT_CHUNK_ROWS, parquetChunks } from '../../src/analytics/export-encode.js';
import { isMatchcastError } from '../../src/domain/index.js';
import { buildCard } from '../../src/serving/cards.js';
import { readParquet } from '../../src/storage/index.js';

const N = 45_000;

function rows(): AnalystRow[] {
  const t0 = Date.UTC(2021, 6, 1);
  return Array.from({ length: N }, (_, i) => ({
    strategy: i % 3 === 0 ? 'model' : 'favourite',
    staking: i % 2 ? 'kelly' : 'flat',
    market: '1x2',
    match_id: 10_000_000 + i,
    start_time_utc: new Date(t0 + i * 3_600_000),
    region_id: i % 8,
    region_name: i % 11 === 0 ? 'Côte, "d\'Ivoire"' : `Region ${i % 8}`,
    season: '2021-2022',
    selection: 'home',
    probability: 1 / (2 + (i % 7) / 3),
    model_run_id: `run-${i % 9}`,
    prediction_time: new Date(t0 + i * 3_600_000 - 172_800_000),
    price_taken: 1.5 + (i % 50) / 17,
    price_observed_at: new Date(t0 + i * 3_600_000 - 172_800_000),
    edge: Math.sin(i) / 10,
    stake: i % 2 ? 0.25 * (i % 13) : 1,
    won: i % 3 === 1,
    profit: i % 3 === 1 ? 0.7 : -1,
    close_price: i % 10 === 0 ? null : 1.4 + (i % 40) / 13,
    close_fair_probability: i % 10 === 0 ? null : 1 / 3 + (i % 5) / 100,
    clv: i % 10 === 0 ? null : Math.cos(i) / 20,
  }));
}

/** A minimal RFC 4180 reader (quoted cells with doubled quotes). */
function parseCsv(text: string): string[][] {
  const out: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(cell);
      cell = '';
    } else if (ch === '\n') {
      row.push(cell);
      out.push(row);
      row = [];
      cell = '';
    } else cell += ch;
  }
  return out;
}

function asText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (v instanceof Date) return v.toISOString();
  return String(v);
}

async function collect(gen: AsyncGenerator<Buffer>): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  for await (const c of gen) chunks.push(c);
  return chunks;
}

describe('streamed exports', () => {
  test('45k rows: CSV and Parquet hold the same columns and values, written chunk by chunk', async () => {
    const data = rows();
    const csvParts = await collect(csvChunks(BET_EXPORT_COLUMNS, data));
    const pqParts = await collect(parquetChunks(BET_EXPORT_COLUMNS, data, { dataset: 'bets' }));
    // Bounded chunks: no part holds more than one chunk of rows.
    assert.ok(csvParts.length >= N / EXPORT_CHUNK_ROWS, `${csvParts.length} CSV chunks`);
    assert.ok(pqParts.length >= N / EXPORT_CHUNK_ROWS, `${pqParts.length} Parquet chunks`);
    const csvTotal = csvParts.reduce((a, b) => a + b.length, 0);
    assert.ok(Math.max(...csvParts.map((b) => b.length)) < csvTotal / 5);
    const pq = Buffer.concat(pqParts);
    const meta = parquetMetadata(
      pq.buffer.slice(pq.byteOffset, pq.byteOffset + pq.byteLength) as ArrayBuffer,
    );
    assert.equal(Number(meta.num_rows), N);
    assert.equal(meta.row_groups.length, Math.ceil(N / EXPORT_CHUNK_ROWS));

    const table = parseCsv(Buffer.concat(csvParts).toString('utf8'));
    assert.deepEqual(
      table[0],
      BET_EXPORT_COLUMNS.map((c) => c.name),
    );
    const back = await readParquet(pq);
    assert.equal(back.length, N);
    assert.equal(table.length - 1, N);
    for (let i = 0; i < N; i += 997) {
      for (let j = 0; j < BET_EXPORT_COLUMNS.length; j++) {
        const col = BET_EXPORT_COLUMNS[j];
        const fromCsv = table[i + 1][j];
        assert.equal(fromCsv, asText(data[i][col.name]), `csv ${col.name} row ${i}`);
        assert.equal(asText(back[i][col.name]), fromCsv, `parquet ${col.name} row ${i}`);
      }
    }
  });
});

describe('a card says which prices its figures use', () => {
  const prediction = {
    match_id: 1,
    home_team_name: 'A',
    away_team_name: 'B',
    start_time_utc: new Date('2023-05-01T18:00:00Z'),
    region_id: 1,
    region_name: 'R',
    tournament_name: 'T',
    season: '2022-2023',
    proba_home: 0.5,
    proba_draw: 0.3,
    proba_away: 0.2,
    predicted_class: 0 as const,
    predicted_label: 'home_win',
    is_future: false,
    model_stage: 'backtest' as const,
    model_run_id: 'r',
    predictions_computed_at: new Date('2023-06-01T00:00:00Z'),
    home_score: 1,
    away_score: 0,
    odds_observed_at: new Date('2023-04-29T18:00:00Z'),
  };
  const odds = {
    match_id: 1,
    odd_home: 2.6,
    odd_draw: 3.4,
    odd_away: 3.0,
    open_home: 2.1,
    open_draw: 3.3,
    open_away: 3.9,
    close_home: 2.6,
    close_draw: 3.4,
    close_away: 3.0,
    source: 'x',
    odd_over25: 2.2,
    odd_under25: 1.7,
    odd_btts_yes: 1.9,
    odd_btts_no: 1.9,
    open_over25: 1.8,
    open_under25: 2.0,
    close_over25: 2.2,
    close_under25: 1.7,
    open_btts_yes: 1.8,
    open_btts_no: 2.0,
    close_btts_yes: 1.9,
    close_btts_no: 1.9,
    odds_observed_at: '2023-05-01T18:00:00.000Z',
    open_observed_at: '2023-04-29T18:00:00.000Z',
    close_observed_at: '2023-05-01T18:00:00.000Z',
  };

  test('edges use the prices observed at the prediction time; closing prices stay apart', () => {
    const card = buildCard(prediction, odds, 'https://x/{match_id}', {
      over_2_5: 0.6,
      btts_yes: 0.55,
    } as never);
    assert.deepEqual([card.used_odd_home, card.used_odd_draw, card.used_odd_away], [2.1, 3.3, 3.9]);
    assert.deepEqual([card.close_odd_home, card.close_odd_draw, card.close_odd_away], [2.6, 3.4, 3.0]);
    assert.equal(card.odds_observed_at, odds.open_observed_at);
    assert.equal(card.close_observed_at, odds.close_observed_at);
    // Every edge and the price labelled as used come from the same number.
    assert.equal(card.edge_home, 0.5 * 2.1 - 1);
    assert.equal(card.edge_away, 0.2 * 3.9 - 1);
    assert.equal(card.edge_over_2_5, 0.6 * 1.8 - 1);
    assert.equal(card.edge_btts_no, (1 - 0.55) * 2.0 - 1);
  });

  test('no price observed at the prediction time: no edge at all', () => {
    const card = buildCard(
      { ...prediction, odds_observed_at: new Date('2023-04-30T12:00:00Z') },
      odds,
      'https://x/{match_id}',
    );
    assert.equal(card.used_odd_home, null);
    assert.equal(card.edge_home, null);
    assert.equal(card.close_odd_home, 2.6, 'the closing price is still shown, as closing');
  });
});

describe('export region filter', () => {
  const data: AnalystData = {
    runId: 'r',
    regions: new Map([
      [3, 'Spain'],
      [7, 'Egypt'],
    ]),
    predictions: [
      { match_id: 1, region_id: 3, start_time_utc: new Date('2023-01-01T00:00:00Z') },
      { match_id: 2, region_id: 7, start_time_utc: new Date('2023-01-02T00:00:00Z') },
    ],
    backtest: [],
    edgeThreshold: 0.05,
  };

  test('a region is named by id or by name, in any case', () => {
    assert.deepEqual(
      exportRows(data, 'predictions', { region: 'egypt' }).map((r) => r.match_id),
      [2],
    );
    assert.deepEqual(
      exportRows(data, 'predictions', { region: '3' }).map((r) => r.match_id),
      [1],
    );
  });

  test('an unknown region is refused, not answered with an empty file', () => {
    assert.throws(
      () => exportRows(data, 'predictions', { region: 'Atlantis' }),
      (err: unknown) => isMatchcastError(err, 'MC_ERR_VALIDATION'),
    );
  });
});
