import { featureGroup } from '../feature-group.js';
import { impliedMeans } from '../implied-means.js';
import { twoWay } from '../market.js';

/** Team step of the goal ratings (the goals model's, `DEFAULT_GOAL_RATING`): share of a closing-line surprise. */
const ETA = 0.45;
/** Step of a region's goal level and home terms. */
const ETA_REGION = 0.01;

/**
 * The goals model's ratings (attack/defence, region goal level and home terms) as 1X2 inputs, moved towards
 * the means a played match's CLOSING prices imply. `gr_sup` = log(λh/λa), `gr_total` = log(λh + λa).
 */
export const goalRatingGroup = featureGroup({
  name: 'goal_rating',
  columns: ['gr_sup', 'gr_total'],
  newTeam: (): { att: number; def: number } => ({ att: 0, def: 0 }),
  newRegion: (): { mu: number; home: number } => ({ mu: Math.log(1.3), home: 0.25 }),
  values({ home: h, away: a, region }, out) {
    const lh = region.mu + region.home / 2 + h.att - a.def;
    const la = region.mu - region.home / 2 + a.att - h.def;
    out.gr_sup = lh - la;
    out.gr_total = Math.log(Math.exp(lh) + Math.exp(la));
  },
  update({ home: h, away: a, region, prices }) {
    const c = prices.close;
    const over = twoWay(prices.record?.close_over25, prices.record?.close_under25);
    const lam = c && over !== null ? impliedMeans(c[0], c[2], over) : null;
    if (!lam) return;
    const eh = Math.log(lam[0]) - (region.mu + region.home / 2 + h.att - a.def);
    const ea = Math.log(lam[1]) - (region.mu - region.home / 2 + a.att - h.def);
    h.att += ETA * eh;
    a.def -= ETA * eh;
    a.att += ETA * ea;
    h.def -= ETA * ea;
    region.mu += (ETA_REGION * (eh + ea)) / 2;
    region.home += ETA_REGION * (eh - ea);
  },
});
