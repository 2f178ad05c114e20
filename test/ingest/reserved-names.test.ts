// Names a file supplies are data, never keys into an object's prototype: a league, division or team
// called `constructor`, `__proto__`, `toString` or `hasOwnProperty` loads like any other, every file
// of the folder is read, and every pipeline stage runs over them.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { MatchesRepository } from '../../src/db/index.js';
import { ingestPath } from '../../src/ingest/index.js';
import { bootstrapFirstRun } from '../../src/pipeline/index.js';
import { openTestEnv, type TestEnv } from '../pipeline/fixtures.js';

const RESERVED = ['constructor', '__proto__', 'toString', 'hasOwnProperty'] as const;
const TEAMS = [...RESERVED, 'valueOf', 'isPrototypeOf'];
const SEASONS = ['2021-2022', '2022-2023'];
const DAY = 86_400_000;

interface Fixture {
  at: Date;
  season: string;
  home: string;
  away: string;
  hg: number;
  ag: number;
}

/** Double round robin of `TEAMS` per season, one round a week from early August; deterministic scores. */
function fixtures(seed: number): Fixture[] {
  const out: Fixture[] = [];
  let s = seed;
  const next = () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
  const n = TEAMS.length;
  for (const [k, season] of SEASONS.entries()) {
    const start = Date.UTC(2021 + k, 7, 7, 14);
    const order = TEAMS.map((_, i) => i);
    const rounds: Array<Array<[number, number]>> = [];
    for (let r = 0; r < n - 1; r++) {
      rounds.push(
        Array.from({ length: n / 2 }, (_, i) => [order[i]!, order[n - 1 - i]!] as [number, number]),
      );
      order.splice(1, 0, order.pop()!);
    }
    const all = [...rounds, ...rounds.map((p) => p.map(([a, b]) => [b, a] as [number, number]))];
    all.forEach((pairs, r) => {
      for (const [h, a] of pairs)
        out.push({
          at: new Date(start + r * 7 * DAY),
          season,
          home: TEAMS[h]!,
          away: TEAMS[a]!,
          hg: Math.floor(next() * 4),
          ag: Math.floor(next() * 3),
        });
    });
  }
  return out;
}

const ODDS = ['2.10,3.40,3.60', '2.60,3.20,2.80', '1.80,3.70,4.50'];

/** football-data.co.uk layout: `Div` is the division code (an unknown code names both region and tournament). */
function footballData(div: string, seed: number): string {
  const rows = fixtures(seed).map((f, i) => {
    const d = f.at;
    const date = `${String(d.getUTCDate()).padStart(2, '0')}/${String(d.getUTCMonth() + 1).padStart(2, '0')}/${d.getUTCFullYear()}`;
    const res = f.hg > f.ag ? 'H' : f.hg === f.ag ? 'D' : 'A';
    return `${div},${date},15:00,${f.home},${f.away},${f.hg},${f.ag},${res},${ODDS[i % 3]},${ODDS[(i + 1) % 3]}`;
  });
  return `Div,Date,Time,HomeTeam,AwayTeam,FTHG,FTAG,FTR,AvgH,AvgD,AvgA,AvgCH,AvgCD,AvgCA\n${rows.join('\n')}\n`;
}

/** The shared football CSV layout: `country` and `league` name the competition. */
function footballCsv(country: string, league: string, seed: number): string {
  const rows = fixtures(seed).map((f, i) => {
    const [h, d, a] = ODDS[i % 3]!.split(',');
    return `${f.at.toISOString().slice(0, 19).replace('T', ' ')},${country},${league},${f.season},${f.home},${f.away},${f.hg},${f.ag},${h},${h},${d},${d},${a},${a}`;
  });
  return `Date,country,league,Season,HomeTeam,AwayTeam,FTHG,FTAG,home_close,home_open,draw_close,draw_open,away_close,away_open\n${rows.join('\n')}\n`;
}

describe('league, division and team names that are Object.prototype members', () => {
  let env: TestEnv;
  let folder: string;
  const perFile = fixtures(1).length;
  // Division codes are at most 12 characters: hasOwnProperty (14) is a league and a team name below.
  const DIVS = ['constructor', '__proto__', 'toString', 'valueOf'];
  // One file per reserved name as a division code, then the shared layout with them as country/league.
  const files: Array<[string, string]> = [
    ...DIVS.map((div, i): [string, string] => [`a${i}-${div}.csv`, footballData(div, i + 1)]),
    ['b-constructor.csv', footballCsv('constructor', 'hasOwnProperty', 7)],
    ['c-proto.csv', footballCsv('__proto__', 'toString', 8)],
    ['d-plain.csv', footballCsv('spain', 'laliga', 9)],
  ];

  before(async () => {
    env = await openTestEnv([]);
    folder = path.join(env.dir, 'csv');
    await mkdir(folder, { recursive: true });
    for (const [name, body] of files) await writeFile(path.join(folder, name), body);
  });
  after(async () => env?.close());

  test('every file is read and every row loads; stored names are the input strings', async () => {
    const report = await ingestPath(folder, env.deps, { now: new Date('2023-09-01T00:00:00Z') });
    assert.equal(report.files, files.length, 'no file aborts the folder');
    assert.deepEqual(report.skipped, []);
    assert.equal(report.rowsRead, files.length * perFile);
    assert.equal(report.inserted, files.length * perFile);
    assert.deepEqual(report.oddsRejected, []);

    const all = await new MatchesRepository(env.deps.db).allMatches();
    const competitions = new Set(all.map((m) => `${m.regionName} / ${m.tournamentName}`));
    assert.deepEqual(
      [...competitions].sort(),
      [
        // Division codes outside the known list keep the code, as written, for both names.
        ...DIVS.map((d) => `${d} / ${d}`),
        // The shared layout's country/league go through the documented slug rule (title case).
        'Constructor / HasOwnProperty',
        'Proto / ToString',
        'Spain / LaLiga',
      ].sort(),
    );
    for (const m of all) {
      assert.ok(TEAMS.includes(m.homeTeamName), m.homeTeamName);
      assert.ok(TEAMS.includes(m.awayTeamName), m.awayTeamName);
      for (const v of [m.regionName, m.tournamentName, m.homeTeamName, m.awayTeamName])
        assert.doesNotMatch(v, /native code|\[object/);
    }
    // Each competition has its own six teams (one team per name and region, none merged or lost).
    const teamsOf = new Map<string, Set<string>>();
    for (const m of all) {
      const set = teamsOf.get(m.regionName) ?? new Set();
      set.add(m.homeTeamName).add(m.awayTeamName);
      teamsOf.set(m.regionName, set);
    }
    for (const set of teamsOf.values()) assert.deepEqual([...set].sort(), [...TEAMS].sort());

    const again = await ingestPath(folder, env.deps, { now: new Date('2023-09-01T00:00:00Z') });
    assert.equal(again.unchanged, files.length * perFile, 'a second ingest finds every match');
  });

  test('the whole pipeline (features … predict … performance) runs over them', {
    timeout: 240_000,
  }, async () => {
    // The first-start path: it signs off a champion, so predictions are written and served too.
    const asOf = new Date('2022-09-20T00:00:00Z');
    const boot = await bootstrapFirstRun(env.deps, asOf);
    const run = boot.run;
    assert.ok(run, 'the pipeline ran');
    assert.deepEqual(run.skipped, []);
    assert.equal(run.features.rows, files.length * perFile);
    assert.ok(run.features.future > 0, 'fixtures after as-of are predicted');
    assert.ok(run.predict, 'a champion predicted');
    const future = run.predict.predictionRows.filter((r) => r.is_future);
    assert.equal(future.length, run.features.future);
    const names = new Set(future.flatMap((r) => [r.home_team_name, r.away_team_name]));
    assert.deepEqual([...names].sort(), [...TEAMS].sort());
    assert.ok(future.some((r) => r.region_name === '__proto__' && r.tournament_name === '__proto__'));
    for (const r of future) assert.ok(Number.isFinite(r.proba_home + r.proba_draw + r.proba_away));
  });
});
