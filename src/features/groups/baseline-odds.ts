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
    (['home', 'draw', 'away'] as const).forEach((side, i) => {
      out[`odds_open_${side}`] = open ? open[i] : null;
      out[`odds_close_${side}`] = close ? close[i] : null;
      out[`odds_pre_${side}`] = pre ? pre[i] : null;
    });
  },
});
