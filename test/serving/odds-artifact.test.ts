import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import Value from 'typebox/value';
import { KEYS } from '../../src/domain/index.js';
import { ingestPath } from '../../src/ingest/index.js';
import { OddsRecord } from '../../src/schemas/index.js';
import { OddsTable } from '../../src/serving/odds.js';
import { writeParquet } from '../../src/storage/index.js';
import { type IngestEnv, ingestEnv } from '../ingest/helpers.js';

const SPEC_FIELDS = ['match_id', 'odd_home', 'odd_draw', 'odd_away'];
let env: IngestEnv;
before(async () => {
  env = await ingestEnv();
});
after(async () => env?.cleanup());

test('GET /predict/odds/ rows: the spec fields as before plus nullable goals-market prices and observation times', async () => {
  const file = path.join(env.config.dataDir, 'odds.csv');
  writeFileSync(
    file,
    [
      'Date,country,league,Season,HomeTeam,AwayTeam,FTHG,FTAG,home_close,home_open,draw_close,draw_open,away_close,away_open,over_2.5_close,over_2.5_open,under_2.5_close,under_2.5_open,bts_yes_close,bts_yes_open,bts_no_close,bts_no_open',
      '2013-08-17 15:00:00,england,premier-league,2013-2014,Arsenal,Aston Villa,1,3,1.4,1.42,4.8,4.6,9,8.5,1.6,1.65,2.4,2.3,1.8,1.85,2.0,1.95',
      '2010-08-14 15:00:00,england,premier-league,2010-2011,Bolton,Fulham,0,0,2.4,2.5,3.3,3.2,3.1,3.0,,,,,,,,',
    ].join('\n'),
  );
  await ingestPath(file, env);
  const obj = await env.store.get(KEYS.odds.bucket, KEYS.odds.key);
  assert.ok(obj);
  const rows = [...(await OddsTable.fromParquet(obj.body)).rows()];
  const json = JSON.parse(JSON.stringify(rows)) as Record<string, unknown>[];
  for (const r of json) {
    for (const f of SPEC_FIELDS) assert.ok(f in r, f);
    assert.ok(Value.Check(OddsRecord, r), JSON.stringify([...Value.Errors(OddsRecord, r)].slice(0, 3)));
  }
  const arsenal = json.find((r) => r.odd_home === 1.4)!;
  assert.deepEqual(
    [
      arsenal.odd_over25,
      arsenal.open_over25,
      arsenal.close_under25,
      arsenal.open_btts_yes,
      arsenal.close_btts_no,
    ],
    [1.6, 1.65, 2.4, 1.85, 2.0],
  );
  assert.equal(arsenal.close_observed_at, '2013-08-17T15:00:00.000Z');
  assert.equal(arsenal.open_observed_at, '2013-08-15T15:00:00.000Z');
  assert.equal(arsenal.odds_observed_at, '2013-08-17T15:00:00.000Z');
  // Before 2012-13 the shared data has no BTTS prices: null, never invented.
  const bolton = json.find((r) => r.odd_home === 2.4)!;
  assert.deepEqual([bolton.odd_btts_yes, bolton.open_over25, bolton.close_btts_no], [null, null, null]);
  // An odds file written before these columns existed still parses, with the new fields null.
  const oldColumns = ['match_id', 'odd_home', 'odd_draw', 'odd_away'].map((name) => ({
    name,
    type: name === 'match_id' ? ('int64' as const) : ('double' as const),
  }));
  const oldFile = writeParquet(oldColumns, [{ match_id: 1, odd_home: 2, odd_draw: 3, odd_away: 4 }]);
  const old = [...(await OddsTable.fromParquet(oldFile)).rows()];
  assert.ok(Value.Check(OddsRecord, JSON.parse(JSON.stringify(old[0]))));
  assert.equal(old[0].odd_over25, null);
});
