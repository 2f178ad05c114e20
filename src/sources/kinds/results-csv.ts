import type { SourceKind } from '../types.js';
import { parseCsvAs } from './csv-checks.js';

/**
 * A results file: the shared football CSV layout or a football-data.co.uk season file
 * (`mmz4281/<season>/<league>.csv`), which grows each week. Rows with a score close their fixtures;
 * rows without one are fixtures; prices are stamped by ingest's rule as of the fetch.
 */
export const resultsCsv: SourceKind = {
  name: 'results-csv',
  description: 'results file: shared football CSV or football-data.co.uk season file (grows each week)',
  body: 'csv',
  grows: true,
  parse: (text, ctx) => parseCsvAs(text, ctx, ['football-csv', 'football-data.co.uk'], 'results'),
};
