// Leakage of the goals-odds inputs in the pipeline: the goals stage takes a match's own
// opening 1X2 and O/U 2.5 prices from the odds observations made by its prediction time only (kick-off
// − 48 h, the served features' early horizon), as the live worker does. A price observed later — even
// one of kind `opening`, which the match's odds record then carries as its opening — reaches neither
// the walk-forward rows nor the champion's rows of the markets file.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { parseConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/index.js';
import {
  KEYS,
  type Match,
  type OddsObservation,
  type OddsRecord,
  OddsTimeline,
  OPENING_LEAD_MS,
} from '../../src/domain/index.js';
import { mergeOddsObservations } from '../../src/ingest/observations-file.js';
import { mergeOddsFile, summariseOdds } from '../../src/ingest/odds-file.js';
import { createLogger } from '../../src/logger.js';
import { runGoalsStage } from '../../src/pipeline/index.js';
import { silentProgress } from '../../src/pipeline/progress.js';
import { createObjectStore, readParquet } from '../../src/storage/index.js';
import { goalsLeague } from '../model/goals-fixture.js';

const HOUR = 3_600_000;
const { matches, odds } = goalsLeague({ seed: 5, seasons: 4, teams: 16, spread: 1.2 });
const at = (share: number) => matches[Math.floor(matches.length * share)].startTimeUtc;
const AS_OF = at(0.9);
const FROM = at(0.6);
const kickoff = (id: number) => matches.find((m) => m.id === id)!.startTimeUtc.getTime();
// One match of the walk-forward window and one fixture after as-of (a champion row).
const inWindow = matches.find((m) => m.startTimeUtc >= at(0.75))!.id;
const fixture = matches.find((m) => m.startTimeUtc > at(0.95))!.id;
const targets = [inWindow, fixture];

/** The league's prices as observations: openings at kick-off − 48 h, closings at kick-off (as ingest stamps CSVs). */
function canonical(): OddsObservation[] {
  const out: OddsObservation[] = [];
  for (const r of odds.values()) {
    const k = kickoff(r.match_id);
    const add = (
      market: OddsObservation['market'],
      kind: 'opening' | 'closing',
      prices: (number | null | undefined)[],
    ) => {
      if (prices.every((p) => typeof p === 'number'))
        out.push({
          match_id: r.match_id,
          market,
          kind,
          observed_at: new Date(kind === 'opening' ? k - OPENING_LEAD_MS : k),
          prices: prices as number[],
          source: 'test',
        });
    };
    add('1x2', 'opening', [r.open_home, r.open_draw, r.open_away]);
    add('1x2', 'closing', [r.close_home, r.close_draw, r.close_away]);
    // A flat opening O/U book: the model (ratings from closing lines) beats it, so the guard lets the
    // version serve and the markets file holds champion rows too.
    add('ou25', 'opening', [1.95, 1.95]);
    add('ou25', 'closing', [r.close_over25, r.close_under25]);
  }
  return out;
}

/** The targets' opening O/U 2.5 replaced by a wild price observed `lead` ms before kick-off (none: dropped). */
function withTargetsOpening(lead: number | null): OddsObservation[] {
  const out = canonical().filter(
    (o) => !(targets.includes(o.match_id) && o.market === 'ou25' && o.kind === 'opening'),
  );
  if (lead !== null) {
    for (const id of targets) {
      out.push({
        match_id: id,
        market: 'ou25',
        kind: 'opening',
        observed_at: new Date(kickoff(id) - lead),
        prices: [1.2, 4.6],
        source: 'late',
      });
    }
  }
  return out;
}

const dirs: string[] = [];
after(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** Runs the goals stage on a store holding `observations` and the odds records summarised from them. */
async function markets(observations: OddsObservation[]): Promise<Map<number, Record<string, unknown>>> {
  const dir = await mkdtemp(path.join(tmpdir(), 'mc-goals-pit-'));
  dirs.push(dir);
  const config = parseConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' });
  const store = createObjectStore(config);
  // The goals registry's rows.
  const db = await openDatabase(config, { memory: true });
  try {
    await mergeOddsObservations({ db, store }, observations);
    const timeline = OddsTimeline.from(observations);
    const records: OddsRecord[] = [];
    for (const id of timeline.matchIds()) {
      const r = summariseOdds(id, timeline);
      if (r) records.push(r);
    }
    await mergeOddsFile(store, records);
    const deps = {
      config,
      store,
      log: createLogger('silent'),
      progress: silentProgress,
      db,
    };
    const result = await runGoalsStage(deps, AS_OF, {
      matches: matches as Match[],
      from: FROM,
      refitDays: 60,
    });
    assert.ok(
      result && result.backtest_rows > 0 && result.rows > result.backtest_rows,
      JSON.stringify(result),
    );
    const obj = await store.get(KEYS.markets.bucket, KEYS.markets.key);
    assert.ok(obj);
    return new Map((await readParquet(obj.body)).map((r) => [Number(r.match_id), r]));
  } finally {
    await db.close();
    await store.close();
  }
}

const goals = (r: Record<string, unknown> | undefined) => [
  r?.expected_home_goals,
  r?.expected_away_goals,
  r?.rho,
];

test('goals stage: an opening O/U price observed after the prediction time changes no markets row; one observed before does', async () => {
  const none = await markets(withTargetsOpening(null));
  // Observed 1 h before kick-off: after the prediction time (kick-off − 48 h). The odds record now calls
  // it the opening O/U price, yet every row — the two targets' included — is as if it did not exist.
  const late = await markets(withTargetsOpening(HOUR));
  assert.equal(late.size, none.size);
  for (const [id, row] of none) assert.deepEqual(goals(late.get(id)), goals(row), `match ${id}`);
  assert.equal(late.get(inWindow)?.model_stage, 'backtest');
  assert.equal(late.get(fixture)?.model_stage, 'champion');
  // The same price observed 1 h before the prediction time is known then: both targets move, so the
  // check above can fail.
  const early = await markets(withTargetsOpening(OPENING_LEAD_MS + HOUR));
  for (const id of targets) assert.notDeepEqual(goals(early.get(id)), goals(none.get(id)), `match ${id}`);
});
