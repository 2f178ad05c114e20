import type { SourceKind } from '../types.js';
import { parseCsvAs } from './csv-checks.js';

/** A results file: grows each week, rows without a score are fixtures. */
export const resultsCsv: SourceKind = {
  name: 'results-csv',
  description: 'results file: shared football CSV or football-data.co.uk season file (grows each week)',
  body: 'csv',
  grows: true,
  parse: (text, ctx) => parseCsvAs(text, ctx, ['football-csv', 'football-data.co.uk'], 'results'),
};
