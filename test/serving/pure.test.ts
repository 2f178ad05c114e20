import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { ODDS_COLUMNS, oddsRows, predictionRows } from '../../bench/precomputed-fixtures.js';
import { BodyEncoder } from '../../src/serving/body-encoder.js';
import { bookmakerUrl, buildCard } from '../../src/serving/cards.js';
import { encodeBodySync, identityOf } from '../../src/serving/encoded-body.js';
import { identityStream, negotiateEncoding, notModified } from '../../src/serving/index.js';
import { OddsTable } from '../../src/serving/odds.js';
import { buildPredictionsView, byKickOff, parsePredictionRows } from '../../src/serving/predictions.js';
import { parseRegionRoiCsv } from '../../src/serving/region-roi.js';
import { ArtifactInvalidError } from '../../src/serving/validate.js';
import { writeParquet } from '../../src/storage/index.js';

describe('content negotiation', () => {
  test('prefers br, then gzip, honours q=0 and *', () => {
    assert.equal(negotiateEncoding(undefined), 'identity');
    assert.equal(negotiateEncoding(''), 'identity');
    assert.equal(negotiateEncoding('gzip, deflate, br'), 'br');
    assert.equal(negotiateEncoding('gzip'), 'gzip');
    assert.equal(negotiateEncoding('br;q=0, gzip;q=0.5'), 'gzip');
    assert.equal(negotiateEncoding('br;q=0, gzip;q=0'), 'identity');
    assert.equal(negotiateEncoding('*'), 'br');
    assert.equal(negotiateEncoding('*;q=0, gzip'), 'gzip');
    assert.equal(negotiateEncoding('deflate'), 'identity');
    assert.equal(negotiateEncoding('identity'), 'identity');
  });

  test('encoded variants decode to the identity body; ETags are strong and distinct per coding', async () => {
    const body = encodeBodySync(JSON.stringify([{ a: 1, b: 'x'.repeat(1000) }]));
    assert.deepEqual(gunzipSync(body.gzip), body.identity);
    assert.deepEqual(brotliDecompressSync(body.br), body.identity);
    const tags = Object.values(body.etags);
    assert.equal(new Set(tags).size, 3);
    for (const t of tags) assert.match(t, /^"[A-Za-z0-9_-]+"$/);
  });

  test('above the identity threshold only compressed copies are held; identity decompresses equal', async () => {
    const text = JSON.stringify([{ a: 1, b: 'y'.repeat(5000) }]);
    const small = encodeBodySync(text);
    const encoder = new BodyEncoder(100);
    await encoder.push(text);
    const big = await encoder.finish();
    assert.equal(big.identity, null);
    assert.equal(big.size, Buffer.byteLength(text));
    assert.equal(identityOf(big).toString(), text);
    assert.deepEqual(big.etags, small.etags);
    const chunks: Buffer[] = [];
    for await (const c of identityStream(big)) chunks.push(c as Buffer);
    assert.equal(Buffer.concat(chunks).toString(), text);
  });

  test('the streaming encoder matches the whole-body encoding (ETags, bytes) with and without the identity copy', async () => {
    // ~6 MB: many chunks, so both compressors push back (the path where a missed 'drain' hangs).
    const parts = Array.from({ length: 60_000 }, (_, i) =>
      JSON.stringify({ i, s: `row ${i} ü € ${'x'.repeat(i % 90)}` }),
    );
    const text = `[${parts.join(',')}]`;
    for (const max of [undefined, 1000]) {
      const done = setTimeout(() => assert.fail('encoder did not finish in 20 s'), 20_000);
      const enc = new BodyEncoder(max);
      await enc.push('[');
      for (let i = 0; i < parts.length; i++) await enc.push(i === 0 ? parts[i] : `,${parts[i]}`);
      await enc.push(']');
      const streamed = await enc.finish();
      const whole = encodeBodySync(text);
      assert.deepEqual(streamed.etags, whole.etags);
      assert.equal(streamed.size, Buffer.byteLength(text));
      assert.equal(streamed.identity === null, max === 1000);
      assert.equal(identityOf(streamed).toString(), text);
      assert.equal(brotliDecompressSync(streamed.br).toString(), text);
      clearTimeout(done);
    }
  });

  test('If-None-Match: list, weak form, * and mismatch', async () => {
    const body = encodeBodySync('[1]');
    const other = encodeBodySync('[2]');
    assert.equal(notModified(undefined, body), false);
    assert.equal(notModified(body.etags.identity, body), true);
    assert.equal(notModified(`"x", W/${body.etags.br}`, body), true);
    assert.equal(notModified('*', body), true);
    assert.equal(notModified(other.etags.identity, body), false);
  });
});

describe('predictions validation', () => {
  const good = () => predictionRows({ n: 10 });

  test('valid rows parse; bulk sorted by kick-off', async () => {
    const rows = good().reverse();
    const view = await buildPredictionsView(parsePredictionRows(rows).sort(byKickOff));
    assert.equal(view.records.count, 10);
    const bulk = JSON.parse(identityOf(view.bulk).toString()) as { match_id: number }[];
    assert.deepEqual(
      bulk.map((r) => r.match_id),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    );
    for (let id = 1; id <= 10; id++)
      assert.equal(JSON.parse(view.records.get(id)?.toString() ?? 'null').match_id, id);
    assert.equal(view.records.get(11), undefined);
  });

  const cases: [string, (rows: Record<string, unknown>[]) => void][] = [
    [
      'missing column',
      (r) => {
        for (const x of r) delete x.proba_draw;
      },
    ],
    [
      'probability out of range',
      (r) => {
        r[2].proba_home = 1.2;
      },
    ],
    [
      'NaN probability',
      (r) => {
        r[2].proba_home = Number.NaN;
      },
    ],
    [
      'infinite probability',
      (r) => {
        r[2].proba_away = Number.POSITIVE_INFINITY;
      },
    ],
    [
      'sum not 1',
      (r) => {
        r[3].proba_home = (r[3].proba_home as number) + 0.05;
      },
    ],
    [
      'duplicate match_id',
      (r) => {
        r[4].match_id = r[5].match_id;
      },
    ],
    [
      'null match_id',
      (r) => {
        r[4].match_id = null;
      },
    ],
    [
      'non-integer match_id',
      (r) => {
        r[4].match_id = 1.5;
      },
    ],
    [
      'string probability',
      (r) => {
        r[1].proba_draw = '0.3';
      },
    ],
    [
      'bad class',
      (r) => {
        r[1].predicted_class = 3;
      },
    ],
    [
      'bad timestamp',
      (r) => {
        r[1].start_time_utc = '2024-01-01';
      },
    ],
    [
      'null model_run_id',
      (r) => {
        r[1].model_run_id = null;
      },
    ],
  ];
  for (const [name, mutate] of cases) {
    test(`rejects: ${name}`, () => {
      const rows = good();
      mutate(rows);
      assert.throws(() => parsePredictionRows(rows), ArtifactInvalidError);
    });
  }

  test('optional card columns may be absent', () => {
    const rows = good();
    for (const r of rows) {
      delete r.region_name;
      delete r.home_score;
    }
    const parsed = parsePredictionRows(rows);
    assert.equal(parsed[0].region_name, null);
    assert.equal(parsed[0].home_score, null);
  });
});

describe('odds validation', () => {
  test('parses; rejects duplicates and impossible prices', async () => {
    const table = await OddsTable.fromParquet(writeParquet(ODDS_COLUMNS, oddsRows([1, 2, 3, 4, 5])));
    assert.equal(table.length, 3);
    const dup = oddsRows([1, 2, 3]);
    dup[1].match_id = 1;
    await assert.rejects(OddsTable.fromParquet(writeParquet(ODDS_COLUMNS, dup)), ArtifactInvalidError);
    const bad = oddsRows([1, 2, 3]);
    bad[0].odd_home = 0.5;
    await assert.rejects(OddsTable.fromParquet(writeParquet(ODDS_COLUMNS, bad)), ArtifactInvalidError);
  });

  test('the columnar table refuses invalid files and gives valid ones in match-id order', async () => {
    const shuffled = oddsRows([9, 4, 7, 1, 3, 8, 2, 6, 5, 10, 11]).reverse();
    shuffled[2].close_home = null;
    const dup = oddsRows([1, 2, 3]);
    dup[1].match_id = 1;
    const low = oddsRows([1, 2, 3]);
    low[1].open_draw = 1;
    const text = oddsRows([1, 2, 3]);
    text[0].odd_away = Number.NaN;
    const refused: Array<[string, Buffer]> = [
      ['duplicate id', writeParquet(ODDS_COLUMNS, dup)],
      ['price not above 1', writeParquet(ODDS_COLUMNS, low)],
      ['price not finite', writeParquet(ODDS_COLUMNS, text)],
      [
        'no odd_home column',
        writeParquet(
          ODDS_COLUMNS.filter((c) => c.name !== 'odd_home'),
          shuffled,
        ),
      ],
      [
        'a time that is not a timestamp',
        writeParquet(
          [...ODDS_COLUMNS, { name: 'open_observed_at', type: 'string' }],
          [{ ...shuffled[0], open_observed_at: 'yesterday' }],
        ),
      ],
    ];
    for (const [what, file] of refused)
      await assert.rejects(OddsTable.fromParquet(file), ArtifactInvalidError, what);
    const rows = async (file: Buffer) => [...(await OddsTable.fromParquet(file)).rows()];
    assert.deepEqual(await rows(writeParquet(ODDS_COLUMNS, [])), []);
    const valid = await rows(writeParquet(ODDS_COLUMNS, shuffled));
    assert.deepEqual(
      valid.map((r) => r.match_id),
      [2, 3, 5, 7, 9, 11],
    );
    assert.equal(valid.find((r) => r.match_id === 2)?.close_home, null);
    assert.equal(valid[0].odd_over25, null, 'an absent optional column reads as null');
    assert.equal(valid[0].odds_observed_at, null);
    const noSource = await rows(
      writeParquet(
        ODDS_COLUMNS.filter((c) => c.name !== 'source'),
        shuffled,
      ),
    );
    assert.ok(noSource.every((r) => r.source === null));
    const extras = await rows(
      writeParquet(
        [
          ...ODDS_COLUMNS,
          { name: 'odd_over25', type: 'double' },
          { name: 'odds_observed_at', type: 'timestamp' },
          { name: 'close_observed_at', type: 'timestamp' },
        ],
        shuffled.map((r, i) => ({
          ...r,
          source: i === 1 ? null : r.source,
          odd_over25: i % 2 ? 1.9 : null,
          odds_observed_at: new Date(Date.UTC(2024, 0, 1, i)),
          close_observed_at: i % 3 ? null : new Date(Date.UTC(2024, 0, 2, i)),
        })),
      ),
    );
    // The file's rows are matches 11, 5, 2, 3, 7, 9.
    const byId = new Map(extras.map((r) => [r.match_id, r]));
    assert.equal(byId.get(5)?.source, null);
    assert.equal(byId.get(11)?.source, 'synthetic');
    assert.deepEqual([byId.get(11)?.odd_over25, byId.get(5)?.odd_over25], [null, 1.9]);
    assert.equal(byId.get(5)?.odds_observed_at, '2024-01-01T01:00:00.000Z');
    assert.deepEqual(
      [byId.get(11)?.close_observed_at, byId.get(5)?.close_observed_at, byId.get(3)?.close_observed_at],
      ['2024-01-02T00:00:00.000Z', null, '2024-01-02T03:00:00.000Z'],
    );
  });
});

describe('cards', () => {
  test('outcome only for finished matches; odds null when unknown', async () => {
    const [past, , , fut] = parsePredictionRows(predictionRows({ n: 4, future: 1 }));
    const odds = (await OddsTable.fromParquet(writeParquet(ODDS_COLUMNS, oddsRows([past.match_id])))).get(
      past.match_id,
    );
    const finished = buildCard(
      { ...past, home_score: 2, away_score: 2 },
      odds,
      'https://b.example/{match_id}',
    );
    assert.equal(finished.status, 'finished');
    assert.equal(finished.outcome, 1);
    assert.equal(finished.outcome_label, 'draw');
    assert.equal(finished.prediction_correct, past.predicted_class === 1);
    assert.equal(finished.odd_home, 2.1);
    assert.equal(finished.bookmaker_url, `https://b.example/${past.match_id}`);
    const scheduled = buildCard(fut, undefined, 'https://b.example/{match_id}');
    assert.equal(scheduled.status, 'scheduled');
    assert.equal(scheduled.outcome, null);
    assert.equal(scheduled.outcome_label, null);
    assert.equal(scheduled.prediction_correct, null);
    assert.equal(scheduled.home_score, null);
    assert.equal(scheduled.odd_home, null);
    assert.equal(scheduled.odd_draw, null);
    assert.equal(scheduled.odd_away, null);
  });

  test('bookmaker URL substitutes and URL-encodes every placeholder', () => {
    const url = bookmakerUrl('https://b.example/m/{match_id}?q={home}-{away}&h={home}', {
      match_id: 42,
      home_team_name: 'A & B/C',
      away_team_name: 'Ünïon?#',
    });
    assert.equal(url, 'https://b.example/m/42?q=A%20%26%20B%2FC-%C3%9Cn%C3%AFon%3F%23&h=A%20%26%20B%2FC');
  });
});

describe('region ROI CSV', () => {
  test('parses numbers and nulls strictly', () => {
    const rows = parseRegionRoiCsv(
      'region_name,roi_pct,n_bets,hit_rate,region_id\nEngland,4.5,120,0.41,1\n"Spain, Liga",-2.25,80,0.3,2\nUnknown,,0,,\n',
    );
    assert.deepEqual(rows, [
      { region_name: 'England', roi_pct: 4.5, n_bets: 120, hit_rate: 0.41, region_id: 1 },
      { region_name: 'Spain, Liga', roi_pct: -2.25, n_bets: 80, hit_rate: 0.3, region_id: 2 },
      { region_name: 'Unknown', roi_pct: null, n_bets: 0, hit_rate: null, region_id: null },
    ]);
  });

  test('column order is free; header only gives []', () => {
    assert.deepEqual(parseRegionRoiCsv('region_id,n_bets,hit_rate,roi_pct,region_name\n'), []);
    assert.deepEqual(parseRegionRoiCsv('region_id,n_bets,hit_rate,roi_pct,region_name\n3,5,0.2,1e1,X\n'), [
      { region_name: 'X', roi_pct: 10, n_bets: 5, hit_rate: 0.2, region_id: 3 },
    ]);
  });

  for (const [name, csv] of [
    ['missing column', 'region_name,roi_pct,n_bets,hit_rate\nA,1,2,0.1\n'],
    ['text in a number', 'region_name,roi_pct,n_bets,hit_rate,region_id\nA,1x,2,0.1,1\n'],
    ['fractional n_bets', 'region_name,roi_pct,n_bets,hit_rate,region_id\nA,1,2.5,0.1,1\n'],
    ['null n_bets', 'region_name,roi_pct,n_bets,hit_rate,region_id\nA,1,,0.1,1\n'],
    ['ragged line', 'region_name,roi_pct,n_bets,hit_rate,region_id\nA,1,2,0.1\n'],
    ['empty file', ''],
    ['unterminated quote', 'region_name,roi_pct,n_bets,hit_rate,region_id\n"A,1,2,0.1,1\n'],
  ] as const) {
    test(`rejects: ${name}`, () => {
      assert.throws(() => parseRegionRoiCsv(csv), ArtifactInvalidError);
    });
  }
});
