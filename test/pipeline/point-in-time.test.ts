// Point-in-time across the whole pipeline: every row predicted before an instant T is computed from
// information that existed before T. A run on data whose results and prices observed after T are all
// changed must give every row predicted before T bit for bit — features at the three horizons, the 1X2
// walk-forward (early and kick-off), the market-free fallback, the goals model and the served file.
// A result is known RESULT_LAG_MS after kick-off, a closing price at kick-off, an opening price 48 h
// before it. T is taken just after a walk-forward refit, in the middle of the window, and after as-of.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parseConfig } from '../../src/config.js';
import { MatchesRepository, type MatchUpsert, openDatabase } from '../../src/db/index.js';
import {
  KEYS,
  type Match,
  type OddsObservation,
  type OddsRecord,
  OddsTimeline,
  OPENING_LEAD_MS,
  RESULT_LAG_MS,
} from '../../src/domain/index.js';
import {
  buildFeatureRows,
  FEATURE_NAMES,
  type FeatureHorizon,
  type FeatureRow,
  featureRowsFromParquet,
} from '../../src/features/index.js';
import { mergeOddsObservations } from '../../src/ingest/observations-file.js';
import { mergeOddsFile, summariseOdds } from '../../src/ingest/odds-file.js';
import { createLogger } from '../../src/logger.js';
import { marketsFromMatrix, scoreMatrix, walkForwardBacktest } from '../../src/model/index.js';
import { bootstrapFirstRun } from '../../src/pipeline/index.js';
import { silentProgress } from '../../src/pipeline/progress.js';
import { createRegistry } from '../../src/registry/index.js';
import { createObjectStore, readParquet } from '../../src/storage/index.js';
import { servedStoreView } from '../helpers/served.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const REFIT_DAYS = 60;

function prng(seed: number): () => number {
  let s = seed | 0;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function poisson(rnd: () => number, l: number): number {
  const limit = Math.exp(-l);
  let k = 0;
  let p = rnd();
  while (p > limit) {
    k++;
    p *= rnd();
  }
  return k;
}

interface Fixture {
  match: MatchUpsert;
  /** Observations without the match id (added once the DB has given the ids). */
  observations: Array<Omit<OddsObservation, 'match_id'>>;
}

/**
 * Two leagues whose matches of a round are spread over days (weekend rounds, midweek rounds three days
 * later), so that teams play twice within 48 h, matches of one league kick off inside each other's
 * 48 h windows, and walk-forward refits fall between them. Opening and closing 1X2, O/U 2.5 and BTTS
 * prices (an intermediate 1X2 price for every third match); every 11th match has no odds at all.
 */
function spreadLeague(): Fixture[] {
  const rnd = prng(2026);
  const out: Fixture[] = [];
  for (const region of ['Eastland', 'Westland']) {
    const n = 8;
    const att = Array.from({ length: n }, () => (rnd() - 0.5) * 0.8);
    const def = Array.from({ length: n }, () => (rnd() - 0.5) * 0.8);
    for (let s = 0; s < 3; s++) {
      const teams = Array.from({ length: n }, (_, i) => i);
      const rounds: Array<Array<[number, number]>> = [];
      for (let k = 0; k < n - 1; k++) {
        rounds.push(
          Array.from({ length: n / 2 }, (_, i) => [teams[i], teams[n - 1 - i]] as [number, number]),
        );
        teams.splice(1, 0, teams.pop()!);
      }
      const all = [...rounds, ...rounds.map((p) => p.map(([a, b]) => [b, a] as [number, number]))];
      let weekStart = Date.UTC(2021 + s, 7, 6, 18); // a Friday evening
      all.forEach((pairs, k) => {
        // Every third round is played midweek, three days after the weekend round before it.
        const midweek = k % 3 === 2;
        const base = midweek ? weekStart + 4 * DAY : weekStart;
        if (!midweek) weekStart += 7 * DAY;
        for (const [h, a] of pairs) {
          const kickoff = base + Math.floor(rnd() * 60) * HOUR;
          const lh = Math.exp(0.3 + att[h] - def[a]);
          const la = Math.exp(0.05 + att[a] - def[h]);
          const hs = poisson(rnd, lh);
          const as = poisson(rnd, la);
          const price = (noise: number) => {
            const mk = marketsFromMatrix(scoreMatrix(lh * (1 + noise * (rnd() - 0.5)), la, -0.05), 1);
            const m = 1.05;
            return {
              x12: [1 / (mk.proba_home * m), 1 / (mk.proba_draw * m), 1 / (mk.proba_away * m)],
              ou: [1 / (mk.over['2.5'] * m), 1 / ((1 - mk.over['2.5']) * m)],
              btts: [1 / (mk.btts_yes * m), 1 / ((1 - mk.btts_yes) * m)],
            };
          };
          const observations: Fixture['observations'] = [];
          if (out.length % 11 !== 10) {
            const open = price(0.4);
            const close = price(0.1);
            const at = (t: number) => new Date(t);
            for (const market of ['x12', 'ou', 'btts'] as const) {
              const m = market === 'x12' ? '1x2' : market === 'ou' ? 'ou25' : 'btts';
              observations.push(
                {
                  market: m,
                  kind: 'opening',
                  observed_at: at(kickoff - OPENING_LEAD_MS),
                  prices: open[market],
                  source: 't',
                },
                { market: m, kind: 'closing', observed_at: at(kickoff), prices: close[market], source: 't' },
              );
            }
            if (out.length % 3 === 0)
              observations.push({
                market: '1x2',
                kind: 'intermediate',
                observed_at: at(kickoff - 6 * HOUR),
                prices: price(0.2).x12,
                source: 't',
              });
          }
          out.push({
            match: {
              regionName: region,
              tournamentName: `${region} League`,
              season: `${2021 + s}-${2022 + s}`,
              startTimeUtc: new Date(kickoff),
              homeTeamName: `${region} ${h}`,
              awayTeamName: `${region} ${a}`,
              status: 'finished',
              homeScore: hs,
              awayScore: as,
            },
            observations,
          });
        }
      });
    }
  }
  return out;
}

const LEAGUE = spreadLeague();
const kickoffs = LEAGUE.map((f) => f.match.startTimeUtc.getTime()).sort((a, b) => a - b);
const AS_OF = new Date(kickoffs[Math.floor(kickoffs.length * 0.85)] + 30 * 60_000);
// The second refit falls 1 h after a kick-off: that match's result is known 1 h after the refit.
const REFIT_2 = kickoffs[Math.floor(kickoffs.length * 0.55)] + HOUR;
const BACKTEST_FROM = new Date(REFIT_2 - REFIT_DAYS * DAY);
const CUTS: Array<[string, number]> = [
  ['just after a refit', REFIT_2 + 30 * 60_000],
  ['mid-window, 1 h before a kick-off', kickoffs[Math.floor(kickoffs.length * 0.7)] - HOUR],
  ['after as-of (served champion rows)', AS_OF.getTime() + 30 * HOUR],
];

/** The league as the DB would hold it at as-of: later matches are scheduled, without a score. */
function matchesOf(league: readonly Fixture[]): MatchUpsert[] {
  return league.map(({ match: m }) =>
    m.startTimeUtc < AS_OF ? m : { ...m, status: 'scheduled', homeScore: null, awayScore: null },
  );
}

/** Every result known after `t` changed (the outcome flips) and every price observed after `t` moved. */
function perturbedAfter(t: number): Fixture[] {
  return LEAGUE.map(({ match: m, observations }) => ({
    match:
      m.startTimeUtc.getTime() + RESULT_LAG_MS > t
        ? { ...m, homeScore: (m.awayScore ?? 0) + 1, awayScore: m.homeScore }
        : m,
    observations: observations.map((o) =>
      o.observed_at.getTime() > t
        ? { ...o, prices: o.prices.map((p, i) => (i === 0 ? 1.01 + (p - 1) * 1.7 : 1.01 + (p - 1) / 1.7)) }
        : o,
    ),
  }));
}

interface Outputs {
  predictionTime: Map<number, number>;
  features: Map<number, FeatureRow>;
  extraFeatures: Map<string, Map<number, FeatureRow>>;
  kickoffWalk: Map<number, unknown[]>;
  files: Map<string, Map<number, Record<string, unknown>>>;
}

const dirs: string[] = [];
after(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** A full first run (bootstrap: features → … → predict) on the league, and what each artifact holds. */
async function runOn(league: readonly Fixture[]): Promise<Outputs> {
  const dir = await mkdtemp(path.join(tmpdir(), 'mc-pit-'));
  dirs.push(dir);
  const config = parseConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' });
  const db = await openDatabase(config, { memory: true });
  const store = createObjectStore(config);
  try {
    const { ids } = await new MatchesRepository(db).upsertMatches(matchesOf(league));
    const observations: OddsObservation[] = league.flatMap((f, i) =>
      f.observations.map((o) => ({ ...o, match_id: ids[i] })),
    );
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
      db,
      store,
      registry: createRegistry({ db, store }, config),
      log: createLogger('silent'),
      progress: silentProgress,
    };
    const boot = await bootstrapFirstRun(deps, AS_OF, {
      backtestFrom: BACKTEST_FROM,
      refitDays: REFIT_DAYS,
      analytics: {},
    });
    assert.ok(boot.run?.predict, 'the first run served predictions');
    const served = servedStoreView({ db, store });
    const files = new Map<string, Map<number, Record<string, unknown>>>();
    for (const name of ['predictions', 'backtest', 'fallbackBacktest', 'markets'] as const) {
      const obj = await served.get(KEYS[name].bucket, KEYS[name].key);
      assert.ok(obj, `${name} written`);
      files.set(name, new Map((await readParquet(obj.body)).map((r) => [Number(r.match_id), r])));
    }
    const fobj = await served.get(KEYS.features.bucket, KEYS.features.key);
    const featureRows = await featureRowsFromParquet(fobj!.body);
    const features = new Map(featureRows.map((r) => [r.match_id, r]));
    const predictionTime = new Map(featureRows.map((r) => [r.match_id, r.prediction_time!.getTime()]));
    // The other horizons, straight from the feature builder, and the kick-off walk-forward.
    const matches: Match[] = await new MatchesRepository(db).allMatches();
    const odds = new Map(records.map((r) => [r.match_id, r]));
    const extraFeatures = new Map<string, Map<number, FeatureRow>>();
    const horizons: Array<[string, FeatureHorizon]> = [
      ['kickoff', 'kickoff'],
      ['at as-of + 1 day', { at: new Date(AS_OF.getTime() + DAY) }],
    ];
    let kickoffRows: FeatureRow[] = [];
    for (const [name, horizon] of horizons) {
      const rows = buildFeatureRows(matches, odds, AS_OF, { observations: timeline, horizon });
      if (horizon === 'kickoff') kickoffRows = rows;
      extraFeatures.set(name, new Map(rows.map((r) => [r.match_id, r])));
    }
    const walk = walkForwardBacktest(kickoffRows, { from: BACKTEST_FROM, to: AS_OF, refitDays: REFIT_DAYS });
    const kickoffWalk = new Map(
      walk.predictions.map((p) => [
        p.match_id,
        [p.proba_home, p.proba_draw, p.proba_away, p.training_cutoff.getTime()],
      ]),
    );
    return { predictionTime, features, extraFeatures, kickoffWalk, files };
  } finally {
    await db.close();
    await store.close();
  }
}

/** The columns of each artifact that carry a prediction (not the match's own result or shown price). */
const COMPARED: Record<string, string[]> = {
  predictions: ['proba_home', 'proba_draw', 'proba_away', 'model_stage', 'training_cutoff'],
  backtest: ['proba_home', 'proba_draw', 'proba_away', 'training_cutoff'],
  fallbackBacktest: ['proba_home', 'proba_draw', 'proba_away', 'training_cutoff'],
  markets: ['expected_home_goals', 'expected_away_goals', 'rho', 'model_stage', 'training_cutoff'],
};
// Feature columns: every one but the evaluation baselines (`odds_*`: the match's own closing line).
const FEATURES = FEATURE_NAMES.filter((n) => !n.startsWith('odds_'));

const same = (a: unknown, b: unknown) =>
  a instanceof Date && b instanceof Date ? a.getTime() === b.getTime() : Object.is(a, b);

describe('point in time across the pipeline', () => {
  let base: Outputs;
  before(async () => {
    base = await runOn(LEAGUE);
  });

  for (const [what, T] of CUTS) {
    test(`rows predicted before T (${what}) are bit-identical when everything after T changes`, async () => {
      const other = await runOn(perturbedAfter(T));
      const before = (id: number) => base.predictionTime.get(id)! < T;
      const counts: Record<string, number> = {};
      const diffs: Record<string, number> = {};
      const check = (name: string, id: number, ok: boolean) => {
        if (!before(id)) {
          if (!ok) diffs[name] = (diffs[name] ?? 0) + 1;
          return;
        }
        counts[name] = (counts[name] ?? 0) + 1;
        assert.ok(
          ok,
          `${name}: match ${id} (predicted ${new Date(base.predictionTime.get(id)!).toISOString()})`,
        );
      };
      for (const [id, r] of base.features) {
        const o = other.features.get(id)!;
        check(
          'features (early)',
          id,
          FEATURES.every((n) => same(r[n], o[n])),
        );
      }
      for (const [name, rows] of base.extraFeatures) {
        const o = other.extraFeatures.get(name)!;
        for (const [id, r] of rows) {
          if (!(r.prediction_time!.getTime() < T)) continue;
          counts[`features (${name})`] = (counts[`features (${name})`] ?? 0) + 1;
          const x = o.get(id)!;
          for (const n of FEATURES) assert.ok(same(r[n], x[n]), `features (${name}): match ${id} ${n}`);
        }
      }
      for (const [id, p] of base.kickoffWalk) {
        const kickoff = base.extraFeatures.get('kickoff')!.get(id)!.prediction_time!.getTime();
        if (!(kickoff < T)) continue;
        counts['kick-off walk-forward'] = (counts['kick-off walk-forward'] ?? 0) + 1;
        assert.deepEqual(other.kickoffWalk.get(id), p, `kick-off walk-forward: match ${id}`);
      }
      for (const [file, rows] of base.files) {
        const o = other.files.get(file)!;
        for (const [id, r] of rows) {
          const x = o.get(id);
          check(file, id, x !== undefined && COMPARED[file].every((c) => same(r[c], x[c])));
        }
        for (const id of o.keys()) if (before(id)) assert.ok(rows.has(id), `${file}: no new row ${id}`);
      }
      // Every kind of row is checked, and the perturbation does reach the rows predicted after T.
      for (const name of ['features (early)', 'predictions', 'backtest', 'fallbackBacktest', 'markets'])
        assert.ok(
          (counts[name] ?? 0) > 0,
          `${name}: rows predicted before T compared (${JSON.stringify(counts)})`,
        );
      assert.ok((diffs['features (early)'] ?? 0) > 0, `rows after T moved (${JSON.stringify(diffs)})`);
    });
  }
});
