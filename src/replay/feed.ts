import { readFile } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';
import { MatchcastError, OPENING_LEAD_MS, parseInstant, RESULT_LAG_MS } from '../domain/index.js';

/** What one {@link ReplayFeed.advance} released: the changed rows as one CSV, and as ingest's files. */
export interface FeedDelta {
  csv: string;
  files: string[];
  rows: number;
  /** Kick-off instants (ms) of the changed rows: the matches to re-predict. */
  kickoffs: number[];
  fixtures: number;
  openings: number;
  closings: number;
  results: number;
}

/** A match becomes a fixture this long before kick-off. */
const FIXTURE_LEAD_MS = 7 * 86_400_000;

/** Rows per feed file: ingest applies a file in one transaction, so a first release of a whole data set is split. */
const FEED_FILE_ROWS = 2000;

const FIXTURE = 1;
const OPENING = 2;
const CLOSING = 3;
const RESULT = 4;
/** Offset from kick-off at which each stage (the index; 0 = hidden) is released. */
const STAGE_OFFSETS = [Number.NEGATIVE_INFINITY, -FIXTURE_LEAD_MS, -OPENING_LEAD_MS, 0, RESULT_LAG_MS];

const REQUIRED = ['Date', 'country', 'league', 'HomeTeam', 'AwayTeam', 'FTHG', 'FTAG'];

/** Columns a fixture carries from the start (who plays where and when). */
const FIXTURE_COLUMNS = new Set(['Date', 'country', 'league', 'Season', 'HomeTeam', 'AwayTeam']);

/** The stage from which a column is shown. */
function columnStage(column: string): number {
  if (FIXTURE_COLUMNS.has(column)) return FIXTURE;
  if (column.endsWith('_open')) return OPENING;
  return column.endsWith('_close') ? CLOSING : RESULT;
}

function csvCell(v: string): string {
  return /[",\n\r]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v;
}

/**
 * The real data as a season that unfolds: each row is released in stages (fixture, opening prices,
 * closing prices, result) as a clock passes it, as CSV for the ordinary ingest (blank = not yet).
 */
export class ReplayFeed {
  private readonly level: Uint8Array;
  /** Per stage, how many rows (in kick-off order) have reached it. */
  private readonly reached = [0, 0, 0, 0, 0];
  private readonly columnStages: number[];

  private constructor(
    private readonly header: string[],
    /** Each row as one CSV line in the header's layout: a string per row, not one per cell. */
    private readonly rows: string[],
    private readonly kickoff: Float64Array,
  ) {
    this.level = new Uint8Array(rows.length);
    this.columnStages = header.map(columnStage);
  }

  /** Reads the CSV files (shared football layout); rows are ordered by kick-off. */
  static async load(files: readonly string[]): Promise<ReplayFeed> {
    let header: string[] | null = null;
    const all: { t: number; cells: string[] }[] = [];
    for (const file of files) {
      const records = parse(await readFile(file), { relaxColumnCount: true, bom: true }) as string[][];
      const [head, ...body] = records;
      if (!head || !REQUIRED.every((c) => head.includes(c))) {
        throw new MatchcastError(
          'MC_ERR_VALIDATION',
          `${file}: a replay reads the shared football CSV layout (${REQUIRED.join(', ')}, …)`,
        );
      }
      header ??= head;
      for (const r of body) {
        // Columns by name, so that files with a different column order line up with the first header.
        const byName = new Map(head.map((c, i) => [c, r[i] ?? '']));
        // The parser ingest uses: a date it would refuse (2022-02-30) is never placed at a rolled-over time.
        const t = parseInstant(byName.get('Date')!)?.getTime();
        if (t === undefined) continue; // ingest would skip and report it; the replay cannot place it
        all.push({ t, cells: header.map((c) => byName.get(c) ?? '') });
      }
    }
    if (!header) throw new MatchcastError('MC_ERR_VALIDATION', 'no CSV files to replay');
    all.sort((a, b) => a.t - b.t);
    return new ReplayFeed(
      header,
      all.map((r) => r.cells.map(csvCell).join(',')),
      Float64Array.from(all.map((r) => r.t)),
    );
  }

  /** Releases everything the clock has passed by `now`; null when nothing changed. */
  advance(now: Date): FeedDelta | null {
    const t = now.getTime();
    const changed = new Set<number>();
    const counts = [0, 0, 0, 0, 0];
    for (let stage = FIXTURE; stage <= RESULT; stage++) {
      let i = this.reached[stage]!;
      const offset = STAGE_OFFSETS[stage]!;
      while (i < this.rows.length && this.kickoff[i]! + offset <= t) {
        if (this.level[i]! < stage) {
          this.level[i] = stage;
          changed.add(i);
        }
        i++;
      }
      counts[stage] = i - this.reached[stage]!;
      this.reached[stage] = i;
    }
    if (changed.size === 0) return null;
    const head = this.header.map(csvCell).join(',');
    const order = [...changed].sort((a, b) => a - b);
    const cells = parse(order.map((i) => this.rows[i]).join('\n'), { relaxColumnCount: true }) as string[][];
    const body = order.map((i, k) => this.render(i, cells[k] ?? []));
    const files: string[] = [];
    for (let k = 0; k < body.length; k += FEED_FILE_ROWS)
      files.push(`${[head, ...body.slice(k, k + FEED_FILE_ROWS)].join('\n')}\n`);
    return {
      csv: `${[head, ...body].join('\n')}\n`,
      files,
      rows: changed.size,
      kickoffs: [...new Set(order.map((i) => this.kickoff[i]!))],
      fixtures: counts[FIXTURE]!,
      openings: counts[OPENING]!,
      closings: counts[CLOSING]!,
      results: counts[RESULT]!,
    };
  }

  /** One row as released so far: later columns blank. */
  private render(i: number, cells: readonly string[]): string {
    const level = this.level[i]!;
    return this.columnStages.map((stage, c) => (level >= stage ? csvCell(cells[c] ?? '') : '')).join(',');
  }
}
