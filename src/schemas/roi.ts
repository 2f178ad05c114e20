import { type Static, Type } from 'typebox';
import { NullableInteger, NullableNumber, NullableString, Strict } from './common.js';

/** Spec §2.6: one row of `reports/roi_by_region.csv` and of `GET /predict/region-roi/`. */
export const RegionRoi = Strict({
  region_name: NullableString('region label'),
  roi_pct: NullableNumber('flat-stake ROI in percent'),
  n_bets: Type.Integer({ description: 'number of simulated bets' }),
  hit_rate: NullableNumber('fraction of winning bets'),
  region_id: NullableInteger('internal region identifier'),
});
export type RegionRoi = Static<typeof RegionRoi>;

/** The header of `reports/roi_by_region.csv`, in order: written by analytics, required by serving. */
export const ROI_BY_REGION_COLUMNS = Object.keys(RegionRoi.properties) as readonly (keyof RegionRoi)[];

/** ROI of a baseline strategy in one region (`/ui/data/roi-baselines.json`). */
export const RoiBaseline = Strict({
  strategy: Type.String({ description: 'baseline strategy, e.g. `favourite`, `home`' }),
  ...RegionRoi.properties,
});
export type RoiBaseline = Static<typeof RoiBaseline>;

export const EXAMPLE_REGION_ROI: RegionRoi = {
  region_name: 'England',
  roi_pct: -3.42,
  n_bets: 1140,
  hit_rate: 0.4728,
  region_id: 1,
};
