import type { ObjectStore } from '../storage/index.js';

const REPORT_KINDS = ['drift_report', 'data_quality', 'performance_report'] as const;
/** Names of the HTML reports in the `reports` bucket; the monitoring routes serve nothing else. */
const REPORT_FILENAME_PATTERN = new RegExp(`^(${REPORT_KINDS.join('|')})_[0-9TZ]+\\.html$`);

export function isReportFilename(name: string): boolean {
  return REPORT_FILENAME_PATTERN.test(name);
}

/** Compact UTC timestamp used in report names: `20261122T041530Z`. */
export function compactTimestamp(d: Date): string {
  return d
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:]/g, '');
}

/** `<kind>_<compact timestamp>.html`, e.g. `drift_report_20261122T041530Z.html`. */
export function reportFilename(kind: (typeof REPORT_KINDS)[number], d: Date): string {
  return `${kind}_${compactTimestamp(d)}.html`;
}

/** Deletes all but the newest `keep` (at least 1) reports of each prefix (names sort by timestamp). */
export async function pruneReports(
  store: ObjectStore,
  prefixes: readonly string[],
  keep: number,
): Promise<number> {
  let deleted = 0;
  for (const prefix of prefixes) {
    const names = (await store.list('reports', prefix))
      .map((o) => o.key)
      .filter(isReportFilename)
      .sort();
    for (const name of names.slice(0, Math.max(0, names.length - Math.max(1, keep)))) {
      await store.delete('reports', name);
      deleted++;
    }
  }
  return deleted;
}
