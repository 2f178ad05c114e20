import { featureGroup } from '../feature-group.js';
import { supremacy } from '../market-ratings.js';

/** Market-implied supremacy (market-ratings.ts); `mr_sup_gap` = ŝ minus this match's market view. */
export const marketRatingGroup = featureGroup({
  name: 'market_rating',
  columns: ['mr_sup', 'mr_sup_gap'],
  newTeam: (): { mr: number } => ({ mr: 0 }),
  newRegion: (s): { mrHome: number } => ({ mrHome: s.marketRating.initialHome }),
  promote(team, prior, fresh) {
    const mr = prior((t) => t.mr);
    if (mr !== null) team.mr = fresh ? mr : Math.min(team.mr, mr);
  },
  values({ home: h, away: a, region, row }, out) {
    const sup = region.mrHome + h.mr - a.mr;
    const mkt = row.mkt_logit_home_away;
    out.mr_sup = sup;
    out.mr_sup_gap = mkt === null || mkt === undefined ? null : sup - mkt;
  },
  // Closing odds of a kicked-off match move the ratings (missing → no update); the row holds them de-margined.
  update({ home: h, away: a, region, row, settings }) {
    const { odds_close_home: ch, odds_close_draw: cd, odds_close_away: ca } = row;
    if (ch === null || cd === null || ca === null) return;
    const e = supremacy([ch, cd, ca]) - (region.mrHome + h.mr - a.mr);
    h.mr += settings.marketRating.eta * e;
    a.mr -= settings.marketRating.eta * e;
    region.mrHome += settings.marketRating.etaRegion * e;
  },
});
