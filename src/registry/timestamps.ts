/**
 * ISO 8601 without a zone designator, in UTC, millisecond precision (spec §2.7 `created_at`):
 * `2026-11-22T10:00:00.123`.
 */
export function isoWithoutZone(date: Date): string {
  return date.toISOString().replace(/Z$/, '');
}
