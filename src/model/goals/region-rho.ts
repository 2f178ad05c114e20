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

/** P(BTTS) of the Dixon–Coles matrix (ρ clamped as `scoreMatrix` does): ρ moves only the 0-0 cell of it. */
function dixonColesBtts(lh: number, la: number, rho: number): number {
  const [lo, hi] = rhoBounds(lh, la);
  const r = Math.min(hi, Math.max(lo, rho));
  return 1 - Math.exp(-lh) - Math.exp(-la) + Math.exp(-lh - la) * (1 - lh * la * r);
}

const logit = (p: number) => Math.log(p / (1 - p));

/** One ρ per region matching its recent closing BTTS prices on average in logit (the line knows a league). */
export function regionRhos(rows: readonly RegionRhoRow[]): Record<string, number> {
  const from =
    rows.reduce((last, r) => Math.max(last, r.t), Number.NEGATIVE_INFINITY) - REGION_RHO_DAYS * DAY_MS;
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
