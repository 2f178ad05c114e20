/**
 * Length limits of ingested text fields (characters, after trimming). A row with a field over its limit
 * is rejected on its own; the rest of the file is loaded. Beyond them a name is not a name (a pasted
 * paragraph, a shifted column), and PostgreSQL's b-tree index on the natural key refuses keys over
 * ~2,700 bytes, which used to abort the whole file.
 */
export const FIELD_LIMITS = {
  /** Team names (the longest real one is about 30). */
  teamName: 80,
  /** Region / country names. */
  regionName: 80,
  /** Tournament / league names. */
  tournamentName: 80,
  /** Odds source labels. */
  source: 120,
  /** Any other single CSV field. */
  field: 200,
  /** A whole CSV line. */
  line: 10_000,
} as const;
