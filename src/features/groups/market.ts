import { featureGroup } from '../feature-group.js';

/** The model's market view: the de-margined 1X2 odds of the latest observation by the prediction time. */
export const marketGroup = featureGroup({
  name: 'market',
  columns: [
    'mkt_home',
    'mkt_draw',
    'mkt_away',
    'mkt_logit_home_away',
    'mkt_logit_draw',
    'mkt_log_draw_away',
    'mkt_overround',
    'mkt_missing',
  ],
  newTeam: () => undefined,
  values({ prices }, out) {
    const mkt = prices.market;
    out.mkt_home = mkt ? mkt[0] : null;
    out.mkt_draw = mkt ? mkt[1] : null;
    out.mkt_away = mkt ? mkt[2] : null;
    out.mkt_logit_home_away = mkt ? Math.log(mkt[0] / mkt[2]) : null;
    out.mkt_logit_draw = mkt ? Math.log(mkt[1] / (1 - mkt[1])) : null;
    out.mkt_log_draw_away = mkt ? Math.log(mkt[1] / mkt[2]) : null;
    out.mkt_overround = mkt ? prices.marketOverround : null;
    out.mkt_missing = mkt ? 0 : 1;
  },
});
