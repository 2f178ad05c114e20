import type { FeatureGroup } from '../feature-group.js';
import { baselineOddsGroup } from './baseline-odds.js';
import { eloGroup } from './elo.js';
import { formGroup } from './form.js';
import { goalRatingGroup } from './goal-rating.js';
import { goalsMarketGroup } from './goals-market.js';
import { marketGroup } from './market.js';
import { marketRatingGroup } from './market-rating.js';
import { piGroup } from './pi.js';
import { restGroup } from './rest.js';
import { seasonGroup } from './season.js';

/** Every feature group, in column order: values are computed in it (a group may read those above it). */
export const FEATURE_GROUPS = [
  eloGroup,
  piGroup,
  formGroup,
  restGroup,
  seasonGroup,
  marketGroup,
  marketRatingGroup,
  goalRatingGroup,
  baselineOddsGroup,
  goalsMarketGroup,
] as const;

/** The list with each group's own state types erased, as the row builder drives it. */
export const FEATURE_GROUP_LIST = FEATURE_GROUPS as unknown as readonly FeatureGroup[];
