import { featureGroup } from '../feature-group.js';

/** De-margined opening, closing and pre-match odds: baselines that `MODEL_FEATURE_NAMES` leaves out. */
export const baselineOddsGroup = featureGroup({
  name: 'baseline_odds',
  columns: [
    'odds_open_home',
    'odds_open_draw',
    'odds_open_away',
    'odds_close_home',
    'odds_close_draw',
    'odds_close_away',
    'odds_pre_home',
    'odds_pre_draw',
    'odds_pre_away',
  ],
  newTeam: () => undefined,
  values({ prices: { open, close, pre } }, out) {
    out.odds_open_home = open ? open[0] : null;
    out.odds_open_draw = open ? open[1] : null;
    out.odds_open_away = open ? open[2] : null;
    out.odds_close_home = close ? close[0] : null;
    out.odds_close_draw = close ? close[1] : null;
    out.odds_close_away = close ? close[2] : null;
    out.odds_pre_home = pre ? pre[0] : null;
    out.odds_pre_draw = pre ? pre[1] : null;
    out.odds_pre_away = pre ? pre[2] : null;
  },
});
