import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { replayClock } from '../../src/domain/index.js';
import { parseCsvText } from '../../src/ingest/index.js';
import { ReplayFeed } from '../../src/replay/index.js';

const HEADER =
  'Date,country,league,Season,HomeTeam,AwayTeam,FTHG,FTAG,HTHG,HTAG,home_close,home_open,draw_close,draw_open,away_close,away_open';
const ROWS = [
  '2022-09-03 14:00:00,england,premier-league,2022-2023,Arsenal,Chelsea,2,1,1,0,1.9,2.0,3.6,3.5,4.2,4.0',
  '2022-09-10 16:30:00,england,premier-league,2022-2023,Everton,Fulham,0,0,0,0,2.4,2.5,3.2,3.1,3.1,3.0',
];

async function feed() {
  const dir = await mkdtemp(path.join(tmpdir(), 'mc-feed-'));
  const file = path.join(dir, 'england.csv');
  await writeFile(file, `${HEADER}\n${ROWS.join('\n')}\n`);
  return { feed: await ReplayFeed.load([file]), done: () => rm(dir, { recursive: true, force: true }) };
}

const at = (iso: string) => new Date(iso);

test('the replay clock starts at as-of and runs `speed` times faster; 0 freezes it', () => {
  let wall = 1_000_000;
  const c = replayClock({ start: at('2022-09-01T00:00:00Z'), speed: 3600, wallNow: () => wall });
  assert.equal(c.now().toISOString(), '2022-09-01T00:00:00.000Z');
  wall += 2000; // 2 s of wall time = 2 simulated hours
  assert.equal(c.now().toISOString(), '2022-09-01T02:00:00.000Z');
  const frozen = replayClock({ start: at('2022-09-01T00:00:00Z'), speed: 0, wallNow: () => wall });
  wall += 60_000;
  assert.equal(frozen.now().toISOString(), '2022-09-01T00:00:00.000Z');
  assert.throws(() => replayClock({ start: new Date(), speed: -1 }));
});

test('a match is released as fixture, opening odds, closing odds, result — never earlier', async () => {
  const { feed: f, done } = await feed();
  try {
    // 2022-09-01: the first match is 2.6 days away (fixture, no odds); the second is 9.7 days away (hidden).
    let d = f.advance(at('2022-09-01T00:00:00Z'))!;
    assert.equal(d.rows, 1);
    let rows = parseCsvText(d.csv, 'feed.csv').matches;
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.match.status, 'scheduled');
    assert.equal(rows[0]!.match.homeScore, null);
    assert.ok(!/1\.9|2\.0|3\.6/.test(d.csv.split('\n')[1]!), 'no odds before kick-off − 48 h');
    assert.equal(f.advance(at('2022-09-01T12:00:00Z')), null, 'nothing new: no delta');
    // 48 h before kick-off: opening odds only.
    d = f.advance(at('2022-09-01T14:00:00Z'))!;
    assert.equal(d.openings, 1);
    const line = d.csv.split('\n')[1]!.split(',');
    assert.deepEqual([line[10], line[11], line[13], line[15]], ['', '2.0', '3.5', '4.0']);
    // Kick-off: closing odds, still no score.
    d = f.advance(at('2022-09-03T14:00:00Z'))!;
    assert.equal(d.closings, 1);
    assert.equal(d.csv.split('\n')[1]!.split(',')[10], '1.9');
    assert.equal(d.csv.split('\n')[1]!.split(',')[6], '');
    // Full time: the result.
    d = f.advance(at('2022-09-03T16:00:00Z'))!;
    assert.equal(d.results, 1);
    rows = parseCsvText(d.csv, 'feed.csv').matches;
    assert.equal(rows[0]!.match.status, 'finished');
    assert.equal(rows[0]!.match.homeScore, 2);
    // A jump releases everything the clock passed, in one delta.
    d = f.advance(at('2022-09-20T00:00:00Z'))!;
    assert.equal(d.rows, 1);
    assert.equal(d.results, 1);
  } finally {
    await done();
  }
});

test('cells with commas, quotes and line breaks are released as they were read', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'mc-feed-'));
  try {
    const file = path.join(dir, 'odd.csv');
    await writeFile(
      file,
      `${HEADER}\n2022-09-03 14:00:00,england,premier-league,2022-2023,"Brighton, ""Hove"" Albion","Wolves\nWanderers",2,1,1,0,1.9,2.0,3.6,3.5,4.2,4.0\n`,
    );
    const f = await ReplayFeed.load([file]);
    const d = f.advance(at('2022-09-20T00:00:00Z'))!;
    assert.equal(d.rows, 1);
    const { parse } = await import('csv-parse/sync');
    const [head, row] = parse(d.csv) as string[][];
    assert.equal(row![head!.indexOf('HomeTeam')], 'Brighton, "Hove" Albion');
    assert.equal(row![head!.indexOf('AwayTeam')], 'Wolves\nWanderers');
    assert.equal(row![head!.indexOf('FTHG')], '2');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
