import { duplicatesCheck } from './duplicates.js';
import { impossibleOddsCheck } from './impossible-odds.js';
import { missingValuesCheck } from './missing-values.js';
import { outOfRangeCheck } from './out-of-range.js';
import { staleDataCheck } from './stale-data.js';
import type { QualityCheckDef } from './types.js';

/** Every data-quality check, in report order. Add a check: one file beside this one and one line here. */
export const QUALITY_CHECKS: readonly QualityCheckDef[] = [
  missingValuesCheck,
  outOfRangeCheck,
  duplicatesCheck,
  impossibleOddsCheck,
  staleDataCheck,
];
