import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Match, OddsRecord } from '../../src/domain/index.js';
import {
  buildFeatureRows,
  DEFAULT_MARKET_RATING,
  demargin,
  FEATURE_NAMES,
  type FeatureRow,
  MODEL_FEATURE_NAMES,
  supremacy,
} from '../../src/features/index.js';
import { syntheticLeague } from './league-fixture.js';

const { matches, odds } = syntheticLeague();
const END = new Date('2030-01-01T00:00:00Z');
/** The target's own closing odds are its evaluation baselines; every other column must not move. */
const OWN_CLOSE = FEATURE_NAMES.filter((n) => n.startsWith('odds_close_') || n.startsWith('odds_pre_'));

function byId(rows: FeatureRow[]): Map<number, FeatureRow> {
  return new Map(rows.map((r) => [r.match_id, r]));
}

function withoutOwnClose(r: FeatureRow): Record<string, unknown> {
  const out: Record<string, unknown> = { ...r };
  for (const k of OWN_CLOSE) delete out[k];
  return out;
}

/** The same odds with one match's closing prices flipped towards the away side. */
function flipClose(target: number): Map<number, OddsRecord> {
  const o = new Map(odds);
  const rec = o.get(target)!;
  o.set(target, {
    ...rec,
    close_home: rec.close_away,
    close_away: rec.close_home,
    odd_home: rec.close_away,
    odd_away: rec.close_home,
  });
  return o;
}

test('market ratings are model inputs; the match’s own closing odds are not', () => {
  assert.ok(MODEL_FEATURE_NAMES.includes('mr_sup'));
  assert.ok(MODEL_FEATURE_NAMES.includes('mr_sup_gap'));
  assert.ok(!MODEL_FEATURE_NAMES.some((n) => n.startsWith('odds_close')));
});

test('no leakage: changing a match’s closing odds changes no feature of that match or of any earlier one', () => {
  const base = byId(buildFeatureRows(matches, odds, END));
  const targets = matches.filter(
    (m) => odds.has(m.id) && odds.get(m.id)!.close_home !== odds.get(m.id)!.close_away,
  );
  for (const target of [targets[12], targets[50], targets[targets.length - 8]]) {
    const rows = buildFeatureRows(matches, flipClose(target.id), END);
    let laterDiffers = false;
    for (const r of rows) {
      const before = base.get(r.match_id)!;
      if (r.start_time_utc.getTime() <= target.startTimeUtc.getTime()) {
        assert.deepEqual(withoutOwnClose(r), withoutOwnClose(before), `match ${r.match_id} changed`);
        if (r.match_id !== target.id) assert.deepEqual(r, before);
      } else if (r.mr_sup !== before.mr_sup) laterDiffers = true;
    }
    // The test can fail: later matches of the same teams do see the changed closing line.
    assert.ok(laterDiffers, 'later rows should reflect the changed closing odds');
  }
});

test('closing odds of matches at or after asOf contribute nothing; missing closing odds move nothing', () => {
  const asOf = matches[Math.floor(matches.length / 2)].startTimeUtc;
  const rows = buildFeatureRows(matches, odds, asOf);
  const futureClose = new Map(
    [...odds].map(([id, o]) => {
      const m = matches.find((x) => x.id === id)!;
      return [id, m.startTimeUtc >= asOf ? { ...o, close_home: 1.5, close_draw: 4, close_away: 7 } : o];
    }),
  );
  const rows2 = buildFeatureRows(matches, futureClose, asOf);
  for (let i = 0; i < rows.length; i++) {
    assert.equal(rows2[i].mr_sup, rows[i].mr_sup);
    assert.equal(rows2[i].mr_sup_gap, rows[i].mr_sup_gap);
  }
  // A match without closing odds (opening kept) leaves the ratings as if it had not been played.
  const target = matches.find((m) => odds.has(m.id) && m.id > 30)!;
  const noClose = new Map(odds);
  noClose.set(target.id, { ...odds.get(target.id)!, close_home: null, close_draw: null, close_away: null });
  const without = byId(buildFeatureRows(matches, noClose, END));
  const dropped = buildFeatureRows(
    matches.filter((m) => m.id !== target.id),
    odds,
    END,
  );
  for (const r of dropped) assert.equal(without.get(r.match_id)!.mr_sup, r.mr_sup);
  // …while with its closing odds the same teams' later ratings do move.
  const withClose = byId(buildFeatureRows(matches, odds, END));
  assert.ok(dropped.some((r) => withClose.get(r.match_id)!.mr_sup !== r.mr_sup));
});

test('market ratings: the update follows the closing supremacy; same kick-off sees nothing of each other', () => {
  const t1 = new Date('2020-08-01T15:00:00Z');
  const t2 = new Date('2020-08-08T15:00:00Z');
  const mk = (id: number, home: string, away: string, start: Date): Match => ({
    id,
    regionId: 1,
    regionName: 'r',
    tournamentName: 'l',
    season: '2020-2021',
    startTimeUtc: start,
    homeTeamName: home,
    awayTeamName: away,
    status: 'finished',
    homeScore: 1,
    awayScore: 0,
  });
  const ms = [mk(1, 'A', 'B', t1), mk(2, 'C', 'D', t1), mk(3, 'A', 'C', t2), mk(4, 'B', 'D', t2)];
  const rec = (id: number, h: number, d: number, a: number): OddsRecord => ({
    match_id: id,
    odd_home: h,
    odd_draw: d,
    odd_away: a,
    open_home: h,
    open_draw: d,
    open_away: a,
    close_home: h,
    close_draw: d,
    close_away: a,
    source: 'test',
  });
  const od = new Map<number, OddsRecord>([
    [1, rec(1, 1.5, 4.2, 6.5)],
    [2, rec(2, 3.6, 3.4, 2.1)],
    // Match 4 has no odds at all: the market view is missing, the rating still exists.
  ]);
  od.set(3, rec(3, 2.2, 3.3, 3.4));
  const rows = buildFeatureRows(ms, od, END);
  const { eta, etaRegion, initialHome } = DEFAULT_MARKET_RATING;
  const s1 = supremacy(demargin(1.5, 4.2, 6.5)!);
  const s2 = supremacy(demargin(3.6, 3.4, 2.1)!);
  assert.equal(rows[0].mr_sup, initialHome);
  assert.equal(rows[1].mr_sup, initialHome, 'same kick-off: match 2 does not see match 1');
  const e1 = s1 - initialHome;
  const h1 = initialHome + etaRegion * e1;
  const e2 = s2 - h1;
  const h2 = h1 + etaRegion * e2;
  const rA = eta * e1;
  const rB = -eta * e1;
  const rC = eta * e2;
  const rD = -eta * e2;
  assert.ok(Math.abs((rows[2].mr_sup as number) - (h2 + rA - rC)) < 1e-12);
  assert.ok(Math.abs((rows[3].mr_sup as number) - (h2 + rB - rD)) < 1e-12);
  assert.ok(
    Math.abs(
      (rows[2].mr_sup_gap as number) - ((rows[2].mr_sup as number) - (rows[2].mkt_logit_home_away as number)),
    ) < 1e-12,
  );
  assert.equal(rows[3].mkt_missing, 1);
  assert.equal(rows[3].mr_sup_gap, null);
});
