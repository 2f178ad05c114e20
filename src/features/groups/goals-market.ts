import { featureGroup } from '../feature-group.js';

/**
 * Goals-market view at the match's prediction time: de-margined P(over 2.5 goals) and
 * P(both teams score) of the latest O/U 2.5 and BTTS observations made at or before it (null when none;
 * BTTS is quoted from 2012-13 in the shared data). Inputs of the goals model; left out of the 1X2
 * model's default inputs (`MODEL_FEATURE_NAMES`).
 */
export const goalsMarketGroup = featureGroup({
  name: 'goals_market',
  columns: ['gm_over25', 'gm_btts'],
  newTeam: () => undefined,
  values({ prices }, out) {
    out.gm_over25 = prices.over25;
    out.gm_btts = prices.btts;
  },
});
