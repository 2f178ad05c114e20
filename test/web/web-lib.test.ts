import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { parseBaselinesCsv } from '../../src/api/routes/ui.js';
import { latestReports, reportKind } from '../../web/src/components/models-panel.js';
import { Api, type ApiError } from '../../web/src/lib/api.js';
import {
  type CardFilter,
  defaultView,
  EMPTY_FILTER,
  edge,
  filterCards,
  indexCards,
  localDayStart,
  regionOptions,
} from '../../web/src/lib/cards.js';
import type { Card } from '../../web/src/lib/types.js';
import { FIXTURE_BASELINES_CSV, makeCards } from './helpers/fixtures.js';

const cards = indexCards(makeCards(40) as unknown as Card[]);
const f = (patch: Partial<CardFilter>): CardFilter => ({ ...EMPTY_FILTER, ...patch });

test('edge is p × odd − 1, null without a usable odd', () => {
  assert.ok(Math.abs(edge(0.5, 2.3)! - 0.15) < 1e-12);
  assert.ok(Math.abs(edge(0.25, 4)! - 0) < 1e-12);
  assert.equal(edge(0.5, null), null);
  assert.equal(edge(0.5, 1), null);
  assert.equal(edge(0.5, Number.NaN), null);
});

test('upcoming sorts by kick-off ascending, recent descending, all ascending', () => {
  const up = filterCards(cards, f({ view: 'upcoming' }));
  const recent = filterCards(cards, f({ view: 'recent' }));
  const all = filterCards(cards, f({ view: 'all' }));
  assert.equal(up.length + recent.length, 40);
  assert.ok(up.every((c) => c.card.status === 'scheduled'));
  assert.ok(recent.every((c) => c.card.status === 'finished'));
  for (let i = 1; i < up.length; i++) assert.ok(up[i - 1].t <= up[i].t);
  for (let i = 1; i < recent.length; i++) assert.ok(recent[i - 1].t >= recent[i].t);
  for (let i = 1; i < all.length; i++) assert.ok(all[i - 1].t <= all[i].t);
  assert.equal(defaultView(cards), 'upcoming');
  assert.equal(defaultView(cards.filter((c) => !c.upcoming)), 'recent');
});

test('filters by region, team (case-insensitive, either side) and an inclusive local date range', () => {
  const england = filterCards(cards, f({ region: '1' }));
  assert.ok(england.length > 0 && england.every((c) => c.card.region_name === 'England'));
  const team = filterCards(cards, f({ team: '  CHELSEA ' }));
  assert.ok(team.length > 0);
  assert.ok(team.every((c) => c.card.home_team_name === 'Chelsea' || c.card.away_team_name === 'Chelsea'));
  const first = cards.reduce((a, b) => (a.t < b.t ? a : b));
  const d = new Date(first.t);
  const day = `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
  const sameDay = filterCards(cards, f({ from: day, to: day }));
  const start = localDayStart(day)!;
  assert.ok(sameDay.length > 0);
  assert.ok(sameDay.every((c) => c.t >= start && c.t < start + 86_400_000));
  assert.equal(filterCards(cards, f({ from: '2999-01-01' })).length, 0);
  assert.equal(localDayStart('not a day'), null);
});

test('region options are unique, named and counted', () => {
  const regions = regionOptions(cards);
  assert.deepEqual(
    regions.map((r) => r.name),
    ['England', 'Germany', 'Italy', 'Spain'],
  );
  assert.equal(
    regions.reduce((s, r) => s + r.count, 0),
    40,
  );
});

test('baselines CSV: baseline strategies per region only (no model rows, no ALL row)', () => {
  const rows = parseBaselinesCsv(FIXTURE_BASELINES_CSV);
  assert.deepEqual(
    rows.map((r) => `${r.strategy}:${r.region_name}`),
    ['favourite:England', 'favourite:Spain', 'home:England', 'home:Spain'],
  );
  assert.deepEqual(rows[0], {
    strategy: 'favourite',
    region_name: 'England',
    region_id: 1,
    roi_pct: -3.9,
    n_bets: 300,
    hit_rate: 0.52,
  });
  assert.deepEqual(
    parseBaselinesCsv('strategy,region_name,roi_pct,n_bets,hit_rate,profit,region_id\nhome,X,,0,,,7\n'),
    [{ strategy: 'home', region_name: 'X', region_id: 7, roi_pct: null, n_bets: 0, hit_rate: null }],
  );
});

test('latest report of each kind is picked from the timestamped names', () => {
  const list = [
    { filename: 'drift_report_20261121T010000Z.html', url: 'a' },
    { filename: 'drift_report_20261122T010000Z.html', url: 'b' },
    { filename: 'data_quality_20261120T010000Z.html', url: 'c' },
  ];
  const latest = latestReports(list);
  assert.equal(latest.drift?.url, 'b');
  assert.equal(latest.quality?.url, 'c');
  assert.equal(reportKind('other.html'), 'other');
});

test('a 401 answering a key since replaced does not drop the new key', async () => {
  const server = createServer((req, res) => {
    // The mistyped key is answered late, after the right one was entered.
    const late = req.headers['x-api-key'] === 'wrong';
    setTimeout(
      () => {
        res.writeHead(late ? 401 : 200, { 'content-type': 'application/json' });
        res.end(late ? '{"detail":"bad key"}' : '[]');
      },
      late ? 100 : 0,
    );
  }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let current: string | null = 'wrong';
  const rejected: string[] = [];
  const api = new Api(
    () => current,
    () => rejected.push(String(current)),
  );
  try {
    const slow = api.get(`${base}/predict/cards/`).catch((e: unknown) => e);
    current = 'right';
    assert.deepEqual(await api.get(`${base}/predict/cards/`), []);
    assert.equal(((await slow) as ApiError).status, 401);
    assert.deepEqual(rejected, [], 'the late 401 of the old key leaves the new one');
    current = 'wrong';
    await api.get(`${base}/x`).catch(() => undefined);
    assert.deepEqual(rejected, ['wrong'], 'a 401 for the key in use asks for it again');
  } finally {
    server.close();
  }
});
