import { DAY_MS } from '../../domain/index.js';
import { rhoBounds } from './score-matrix.js';

/** Days of training matches, back from the latest one, whose closing BTTS prices set a region's ρ. */
const REGION_RHO_DAYS = 365;
/** Fewest such matches a region needs; with fewer it keeps the global ρ. */
const REGION_RHO_MIN_MATCHES = 50;

interface RegionRhoRow {
  region_id: number;
  t: number;
  lh: number;
  la: number;
  btts_close: number | null;
}

/**
 * P(both teams score) of the Dixon–Coles matrix with these means (ρ clamped as `scoreMatrix` does):
 * ρ leaves both sides' P(0 goals) unchanged, so only the 0-0 cell moves.
 */
function dixonColesBtts(lh: number, la: number, rho: number): number {
  const [lo, hi] = rhoBounds(lh, la);
  const r = Math.min(hi, Math.max(lo, rho));
  return 1 - Math.exp(-lh) - Math.exp(-la) + Math.exp(-lh - la) * (1 - lh * la * r);
}

const logit = (p: number) => Math.log(p / (1 - p));

/**
 * One ρ per region, at which its recent training matches' matrices carry their closing BTTS price on
 * average in logit: the line knows a league's low-score habits better than a global ρ fitted on scores.
 */
export function regionRhos(rows: readonly RegionRhoRow[]): Record<string, number> {
  let last = Number.NEGATIVE_INFINITY;
  for (const r of rows) last = Math.max(last, r.t);
  const from = last - REGION_RHO_DAYS * DAY_MS;
  const byRegion = new Map<number, RegionRhoRow[]>();
  for (const r of rows) {
    if (r.t < from || r.btts_close === null || !(r.btts_close > 0 && r.btts_close < 1)) continue;
    const list = byRegion.get(r.region_id) ?? [];
    list.push(r);
    byRegion.set(r.region_id, list);
  }
  const out: Record<string, number> = {};
  for (const [region, list] of [...byRegion].sort((a, b) => a[0] - b[0])) {
    if (list.length < REGION_RHO_MIN_MATCHES) continue;
    const gap = (rho: number) => {
      let s = 0;
      for (const r of list) s += logit(r.btts_close!) - logit(dixonColesBtts(r.lh, r.la, rho));
      return s;
    };
    // BTTS falls as ρ rises, so the gap rises: bisect its sign change.
    let lo = -0.4;
    let hi = 0.3;
    for (let it = 0; it < 40; it++) {
      const mid = (lo + hi) / 2;
      if (gap(mid) > 0) hi = mid;
      else lo = mid;
    }
    out[String(region)] = (lo + hi) / 2;
  }
  return out;
}
