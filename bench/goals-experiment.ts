/**
 * Goals-model family experiment (issue 16): walk-forward on the real CSVs, log loss of O/U 2.5 and
 * BTTS against the de-margined opening and closing lines. Research only; the adopted recipe lives in
 * src/model/goals. Tuning window by default; `--eval` runs the evaluation window 2021-07..2023-06.
 *
 *   node --import tsx bench/goals-experiment.ts [--eval] [--only=a,b]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { impliedMeans } from '../src/features/implied-means.js';
import { buildFeatureRows, demargin, type FeatureRow } from '../src/features/index.js';
import { marketsFromMatrix } from '../src/model/goals/markets.js';
import { fitPoissonGlm, predictPoissonGlm } from '../src/model/goals/poisson-glm.js';
import { regionRhos } from '../src/model/goals/region-rho.js';
import { dixonColesTau, scoreMatrix } from '../src/model/goals/score-matrix.js';
import { FOOTBALL_DATA_DIR, loadFootballData } from './football-data.js';

const EVAL = process.argv.includes('--eval');
const only = process.argv
  .find((a) => a.startsWith('--only='))
  ?.slice(7)
  .split(',');
const WIN = EVAL
  ? { from: Date.parse('2021-07-01T00:00:00Z'), to: Date.parse('2023-07-01T00:00:00Z') }
  : { from: Date.parse('2015-07-01T00:00:00Z'), to: Date.parse('2021-07-01T00:00:00Z') };
const REFIT_DAYS = 90;
const DAY = 86_400_000;

const { matches, odds } = loadFootballData();
interface GoalsOdds {
  ouOpen: number | null;
  ouClose: number | null;
  bttsOpen: number | null;
  bttsClose: number | null;
}
const two = (a: string, b: string): number | null => {
  const x = Number(a);
  const y = Number(b);
  if (!a || !b || !(x > 1) || !(y > 1)) return null;
  return 1 / x / (1 / x + 1 / y);
};
const gOdds = new Map<number, GoalsOdds>();
let id = 0;
for (const f of readdirSync(FOOTBALL_DATA_DIR)
  .filter((f) => f.endsWith('.csv'))
  .sort()) {
  for (const r of parse(readFileSync(join(FOOTBALL_DATA_DIR, f)), {
    columns: true,
    skip_empty_lines: true,
  }) as Record<string, string>[]) {
    id++;
    gOdds.set(id, {
      ouOpen: two(r['over_2.5_open'], r['under_2.5_open']),
      ouClose: two(r['over_2.5_close'], r['under_2.5_close']),
      bttsOpen: two(r.bts_yes_open, r.bts_no_open),
      bttsClose: two(r.bts_yes_close, r.bts_no_close),
    });
  }
}
const t0 = performance.now();
const rows = buildFeatureRows(matches, odds, new Date('2100-01-01T00:00:00Z'));
const byId = new Map(matches.map((m) => [m.id, m]));
console.error(`features ${((performance.now() - t0) / 1000).toFixed(1)} s`);

// --- goal ratings from earlier matches' CLOSING lines (1X2 + O/U) ---
function goalRatings(eta: number, etaR: number): Map<number, [number, number]> {
  const out = new Map<number, [number, number]>();
  const att = new Map<string, number>();
  const def = new Map<string, number>();
  const mu = new Map<number, number>();
  const ha = new Map<number, number>();
  let i = 0;
  while (i < rows.length) {
    let j = i;
    const t = rows[i].start_time_utc.getTime();
    while (j < rows.length && rows[j].start_time_utc.getTime() === t) j++;
    const upd: Array<() => void> = [];
    for (let g = i; g < j; g++) {
      const r = rows[g];
      const kH = `${r.region_id}|${r.home_team_name}`;
      const kA = `${r.region_id}|${r.away_team_name}`;
      const m0 = mu.get(r.region_id) ?? Math.log(1.3);
      const h0 = ha.get(r.region_id) ?? 0.25;
      const ph = m0 + h0 / 2 + (att.get(kH) ?? 0) - (def.get(kA) ?? 0);
      const pa = m0 - h0 / 2 + (att.get(kA) ?? 0) - (def.get(kH) ?? 0);
      out.set(r.match_id, [Math.exp(ph), Math.exp(pa)]);
      const o = odds.get(r.match_id);
      const c = o ? demargin(o.close_home, o.close_draw, o.close_away) : null;
      const ou = gOdds.get(r.match_id)?.ouClose ?? null;
      const lam = c && ou !== null ? impliedMeans(c[0], c[2], ou) : null;
      if (lam) {
        upd.push(() => {
          const eh = Math.log(lam[0]) - ph;
          const ea = Math.log(lam[1]) - pa;
          att.set(kH, (att.get(kH) ?? 0) + eta * eh);
          def.set(kA, (def.get(kA) ?? 0) - eta * eh);
          att.set(kA, (att.get(kA) ?? 0) + eta * ea);
          def.set(kH, (def.get(kH) ?? 0) - eta * ea);
          mu.set(r.region_id, m0 + (etaR * (eh + ea)) / 2);
          ha.set(r.region_id, h0 + etaR * (eh - ea));
        });
      }
    }
    for (const u of upd) u();
    i = j;
  }
  return out;
}

// --- per-match model inputs ---
interface Prep {
  row: FeatureRow;
  hg: number;
  ag: number;
  t: number;
  /** Market-implied means from the opening prices (null when missing). */
  open: [number, number] | null;
  gr: [number, number];
  go: GoalsOdds;
  c1x2: [number, number, number] | null;
}
const t1 = performance.now();
const GR_ETA = Number(process.env.GR_ETA ?? 0.2);
const grs = goalRatings(GR_ETA, 0.01);
const preps: Prep[] = [];
for (const row of rows) {
  const m = byId.get(row.match_id)!;
  if (m.homeScore === null || m.awayScore === null) continue;
  const go = gOdds.get(row.match_id)!;
  const o = odds.get(row.match_id)!;
  const open =
    row.mkt_home !== null && row.mkt_away !== null && row.mkt_missing !== 1
      ? impliedMeans(row.mkt_home, row.mkt_away, go.ouOpen)
      : null;
  preps.push({
    row,
    hg: m.homeScore,
    ag: m.awayScore,
    t: row.start_time_utc.getTime(),
    open: go.ouOpen === null ? null : open,
    gr: grs.get(row.match_id)!,
    go,
    c1x2: demargin(o.close_home, o.close_draw, o.close_away),
  });
}
console.error(`prep ${((performance.now() - t1) / 1000).toFixed(1)} s`);

const lg = (x: number) => Math.log(Math.max(x, 1e-6));
const lgt = (p: number) => Math.log(p / (1 - p));
type Design = (p: Prep, side: 0 | 1) => number[];
const num = (v: number | null, d = 0) => (v === null || !Number.isFinite(v) ? d : v);
const variants: Record<
  string,
  { design: Design; rho: boolean; bttsRho?: boolean; regionRho?: boolean; drawRho?: boolean }
> = {
  // market only: the opening-implied mean of this side (ratings mean when O/U missing)
  mkt: { rho: false, design: (p, s) => [lg(p.open ? p.open[s] : p.gr[s]), p.open ? 0 : 1] },
  mkt_dc: { rho: true, design: (p, s) => [lg(p.open ? p.open[s] : p.gr[s]), p.open ? 0 : 1] },
  mkt_both_dc: {
    rho: true,
    design: (p, s) => [
      lg(p.open ? p.open[s] : p.gr[s]),
      lg(p.open ? p.open[1 - s] : p.gr[1 - s]),
      p.open ? 0 : 1,
    ],
  },
  mkt_gr_dc: {
    rho: true,
    design: (p, s) => [lg(p.open ? p.open[s] : p.gr[s]), lg(p.gr[s]), lg(p.gr[1 - s]), p.open ? 0 : 1],
  },
  // the adopted inputs, ρ per region from the last year's closing BTTS prices (src/model/goals/region-rho.ts)
  mkt_gr_region_rho: {
    rho: true,
    regionRho: true,
    design: (p, s) => [lg(p.open ? p.open[s] : p.gr[s]), lg(p.gr[s]), lg(p.gr[1 - s]), p.open ? 0 : 1],
  },
  // the adopted inputs, ρ per match moved from the region's ρ towards the ρ that makes the matrix's draw equal
  // the de-margined opening draw price (the one degree of freedom of the opening 1X2 the means do not use)
  mkt_gr_drawrho: {
    rho: true,
    regionRho: true,
    drawRho: true,
    design: (p, s) => [lg(p.open ? p.open[s] : p.gr[s]), lg(p.gr[s]), lg(p.gr[1 - s]), p.open ? 0 : 1],
  },
  mkt_gr_bttsrho: {
    rho: true,
    bttsRho: true,
    design: (p, s) => [lg(p.open ? p.open[s] : p.gr[s]), lg(p.gr[s]), lg(p.gr[1 - s]), p.open ? 0 : 1],
  },
  mkt_gr_btts_dc: {
    rho: true,
    design: (p, s) => [
      lg(p.open ? p.open[s] : p.gr[s]),
      lg(p.gr[s]),
      lg(p.gr[1 - s]),
      p.open ? 0 : 1,
      p.go.bttsOpen === null ? 0 : lgt(p.go.bttsOpen),
      p.go.bttsOpen === null ? 1 : 0,
    ],
  },
  mkt_gr_form_dc: {
    rho: true,
    design: (p, s) => {
      const r = p.row;
      return [
        lg(p.open ? p.open[s] : p.gr[s]),
        lg(p.gr[s]),
        lg(p.gr[1 - s]),
        p.open ? 0 : 1,
        num(s === 0 ? r.form_gf_home : r.form_gf_away, 1.3),
        num(s === 0 ? r.form_ga_away : r.form_ga_home, 1.3),
        num(r.pi_expected_gd) * (s === 0 ? 1 : -1),
        num(r.mr_sup) * (s === 0 ? 1 : -1),
      ];
    },
  },
};

function impliedRho(lh: number, la: number, btts: number | null): number | null {
  if (btts === null) return null;
  const e = Math.exp(-lh - la);
  const r = ((1 - Math.exp(-lh)) * (1 - Math.exp(-la)) - btts) / (lh * la * e);
  return Math.max(-0.4, Math.min(0.3, r));
}
/** ρ that makes the Dixon–Coles matrix's draw equal `draw` (draw = D0 − 2ρ·λμ·e^{−λ−μ}). */
function drawRho(lh: number, la: number, draw: number | null): number | null {
  if (draw === null) return null;
  const d0 = marketsFromMatrix(scoreMatrix(lh, la, 0)).proba_draw;
  const r = (d0 - draw) / (2 * lh * la * Math.exp(-lh - la));
  return Math.max(-0.4, Math.min(0.3, r));
}
/** The match's own ρ of the draw-price variant, from its opening draw (none when the opening 1X2 is missing). */
const openDrawRho = (p: Prep, lh: number, la: number) =>
  drawRho(lh, la, p.row.mkt_missing === 1 ? null : p.row.mkt_draw);
function fitRho(
  train: Prep[],
  lam: Array<[number, number]>,
  w = 0,
  r0: number | ((p: Prep) => number) = 0,
  implied: (p: Prep, l: [number, number]) => number | null = (p, l) => impliedRho(l[0], l[1], p.go.bttsOpen),
): number {
  let lo = w ? -0.5 : -0.25;
  let hi = w ? 1.5 : 0.15;
  const low = train.map((p, i) => ({ p, l: lam[i] })).filter((x) => x.p.hg < 2 && x.p.ag < 2);
  const rs = low.map((x) => implied(x.p, x.l));
  const base = low.map((x) => (typeof r0 === 'number' ? r0 : r0(x.p)));
  const f = (rho: number) => {
    let s = 0;
    for (let i = 0; i < low.length; i++) {
      const { p, l } = low[i];
      const r = w ? (rs[i] === null ? base[i] : (1 - rho) * base[i] + rho * rs[i]!) : rho;
      s += Math.log(Math.max(1e-12, dixonColesTau(p.hg, p.ag, l[0], l[1], r)));
    }
    return s;
  };
  for (let it = 0; it < 40; it++) {
    const a = lo + (hi - lo) * 0.382;
    const b = lo + (hi - lo) * 0.618;
    if (f(a) > f(b)) hi = b;
    else lo = a;
  }
  return (lo + hi) / 2;
}

const ll = (p: number, y: boolean) => -Math.log(Math.max(1e-12, y ? p : 1 - p));
function bootstrap(d: number[], B = 2000): [number, number] {
  let seed = 12345;
  const rnd = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const means: number[] = [];
  for (let b = 0; b < B; b++) {
    let s = 0;
    for (let i = 0; i < d.length; i++) s += d[Math.floor(rnd() * d.length)];
    means.push(s / d.length);
  }
  means.sort((x, y) => x - y);
  return [means[Math.floor(0.025 * B)], means[Math.floor(0.975 * B)]];
}

const HL = Number(process.env.HL ?? 0);
const TRAIN_FROM = Date.parse(process.env.TRAIN_FROM ?? '2010-07-01T00:00:00Z');
for (const [name, v] of Object.entries(variants)) {
  if (only && !only.includes(name)) continue;
  const t2 = performance.now();
  const res: Array<{ p: Prep; pOver: number; pBtts: number; p1x2: [number, number, number] }> = [];
  const rhos: number[] = [];
  for (let cut = WIN.from; cut < WIN.to; cut += REFIT_DAYS * DAY) {
    const until = Math.min(cut + REFIT_DAYS * DAY, WIN.to);
    const train = preps.filter((p) => p.t < cut && p.t >= TRAIN_FROM);
    const models = ([0, 1] as const).map((s) =>
      fitPoissonGlm(
        Float64Array.from(train.flatMap((p) => v.design(p, s))),
        v.design(train[0], s).length,
        train.map((p) => (s === 0 ? p.hg : p.ag)),
        HL > 0 ? train.map((p) => 0.5 ** ((cut - p.t) / (HL * DAY))) : null,
      ),
    );
    let rho = 0;
    let wB = 0;
    let byRegion: Record<string, number> = {};
    if (v.rho) {
      const lam = train.map(
        (p) =>
          [predictPoissonGlm(models[0], v.design(p, 0)), predictPoissonGlm(models[1], v.design(p, 1))] as [
            number,
            number,
          ],
      );
      rho = fitRho(train, lam);
      if (v.bttsRho) wB = fitRho(train, lam, 1, rho);
      if (v.regionRho) {
        byRegion = regionRhos(
          train.map((p, i) => ({
            region_id: p.row.region_id,
            t: p.t,
            lh: lam[i][0],
            la: lam[i][1],
            btts_close: p.go.bttsClose,
          })),
        );
      }
      if (v.drawRho) {
        wB = fitRho(
          train,
          lam,
          1,
          (p) => byRegion[String(p.row.region_id)] ?? rho,
          (p, l) => openDrawRho(p, l[0], l[1]),
        );
      }
    }
    rhos.push(v.bttsRho || v.drawRho ? wB : rho);
    for (const p of preps) {
      if (p.t < cut || p.t >= until) continue;
      const lh = predictPoissonGlm(models[0], v.design(p, 0));
      const la = predictPoissonGlm(models[1], v.design(p, 1));
      const ri = v.bttsRho ? impliedRho(lh, la, p.go.bttsOpen) : v.drawRho ? openDrawRho(p, lh, la) : null;
      const r0 = byRegion[String(p.row.region_id)] ?? rho;
      const mk = marketsFromMatrix(scoreMatrix(lh, la, ri === null ? r0 : (1 - wB) * r0 + wB * ri));
      res.push({
        p,
        pOver: mk.over['2.5'],
        pBtts: mk.btts_yes,
        p1x2: [mk.proba_home, mk.proba_draw, mk.proba_away],
      });
    }
  }
  // O/U: matches with both opening and closing lines; BTTS likewise.
  const ou = res.filter((r) => r.p.go.ouOpen !== null && r.p.go.ouClose !== null);
  const bt = res.filter((r) => r.p.go.bttsOpen !== null && r.p.go.bttsClose !== null);
  const ouY = (r: (typeof res)[number]) => r.p.hg + r.p.ag > 2.5;
  const btY = (r: (typeof res)[number]) => r.p.hg > 0 && r.p.ag > 0;
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const mOu = ou.map((r) => ll(r.pOver, ouY(r)));
  const oOu = ou.map((r) => ll(r.p.go.ouOpen!, ouY(r)));
  const cOu = ou.map((r) => ll(r.p.go.ouClose!, ouY(r)));
  const mBt = bt.map((r) => ll(r.pBtts, btY(r)));
  const oBt = bt.map((r) => ll(r.p.go.bttsOpen!, btY(r)));
  const cBt = bt.map((r) => ll(r.p.go.bttsClose!, btY(r)));
  const ciOu = bootstrap(mOu.map((x, i) => x - oOu[i]));
  const ciBt = bootstrap(mBt.map((x, i) => x - oBt[i]));
  const x12 = res.filter((r) => r.p.row.odds_open_home !== null);
  const lab = (r: (typeof res)[number]) => (r.p.hg > r.p.ag ? 0 : r.p.hg === r.p.ag ? 1 : 2);
  const m1 = mean(x12.map((r) => -Math.log(r.p1x2[lab(r)])));
  const o1 = mean(
    x12.map(
      (r) => -Math.log([r.p.row.odds_open_home!, r.p.row.odds_open_draw!, r.p.row.odds_open_away!][lab(r)]),
    ),
  );
  console.log(
    `${name.padEnd(16)} OU n=${ou.length} model ${mean(mOu).toFixed(5)} open ${mean(oOu).toFixed(5)} close ${mean(cOu).toFixed(5)} d[${ciOu.map((x) => x.toFixed(5)).join(',')}] | BTTS n=${bt.length} model ${mean(mBt).toFixed(5)} open ${mean(oBt).toFixed(5)} close ${mean(cBt).toFixed(5)} d[${ciBt.map((x) => x.toFixed(5)).join(',')}] | 1X2 ${m1.toFixed(5)} open ${o1.toFixed(5)} | rho ${mean(rhos).toFixed(3)} | ${((performance.now() - t2) / 1000).toFixed(1)} s`,
  );
}
