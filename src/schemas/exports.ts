import { Type } from 'typebox';
import { Literals, Strict } from './common.js';

/** Path of `GET /predict/export/{dataset}`. */
export const ExportParams = Strict({
  dataset: Literals(['predictions', 'backtest', 'bets'], {
    description:
      '`predictions` (served rows and the prices they used), `backtest` (every out-of-sample view per match) or `bets` (every simulated bet); columns in docs/analytics.md',
  }),
});

const Day = (description: string) =>
  Type.String({
    description,
    pattern: '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,3})?)?(Z|[+-]\\d{2}:\\d{2}))?$',
  });

/** Query of `GET /predict/export/{dataset}`. */
export const ExportQuery = Strict({
  format: Type.Optional(
    Literals(['csv', 'parquet'], {
      description: 'file format (default `csv`); both hold the same columns and values',
    }),
  ),
  from: Type.Optional(Day('first kick-off included (YYYY-MM-DD = 00:00 UTC, or ISO 8601)')),
  to: Type.Optional(Day('kick-offs before this instant (exclusive)')),
  region: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'region id or name' })),
});

/** The 200 of an export: a CSV or Parquet file, streamed (documented as a string). */
export const ExportFile = Type.String({
  description:
    'text/csv (header line, ISO 8601 times, empty = null) or application/vnd.apache.parquet (typed, nullable columns)',
});

export const EXAMPLE_EXPORT_CSV =
  'strategy,staking,market,match_id,start_time_utc,region_id,region_name,season,selection,probability,model_run_id,prediction_time,price_taken,price_observed_at,edge,stake,won,profit,close_price,close_fair_probability,clv\nmodel,flat,1x2,7680,2023-07-26T19:30:00.000Z,2,Egypt,2022-2023,away,0.58,b1d2777ec2b04e9b7fcc389755ee10ad,2023-07-24T19:30:00.000Z,1.9,2023-07-24T19:30:00.000Z,0.102,1,false,-1,2.3,0.411,-0.219\n';
