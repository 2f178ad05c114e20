import { featureGroup } from '../feature-group.js';

/** De-margined P(over 2.5) and P(both score) at the prediction time: goals-model inputs, not 1X2 ones. */
export const goalsMarketGroup = featureGroup({
  name: 'goals_market',
  columns: ['gm_over25', 'gm_btts'],
  newTeam: () => undefined,
  values({ prices }, out) {
    out.gm_over25 = prices.over25;
    out.gm_btts = prices.btts;
  },
});
