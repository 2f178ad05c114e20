import type { Logger } from '../logger.js';
import { MATRIX_SIZE, type MarketsRow, marketsFromMatrix, scoreMatrix } from '../model/index.js';
import { publishedEtag, readPublished, servedRef } from '../runs/index.js';
import type { MatchMarkets } from '../schemas/index.js';
import { type ObjectStore, readParquet } from '../storage/index.js';
import type { ViewStatus } from './types.js';

/**
 * The pre-serialised JSON of one match's markets (without the score matrix). The object itself is not
 * kept: 45k of them cost tens of MB of heap, and only the rare `?matrix=true` needs it (parsed then).
 */
interface Entry {
  json: Buffer;
}

/** Card summary of one match's goals markets (additive card fields). */
export interface CardMarketsSummary {
  expected_home_goals: number;
  expected_away_goals: number;
  over_2_5: number;
  btts_yes: number;
  top_score: string;
  /** Bookmaker prices behind the markets row (null when unknown). */
  odd_over25: number | null;
  odd_under25: number | null;
  odd_btts_yes: number | null;
  odd_btts_no: number | null;
}

/** The card summary of one match's markets. */
function summaryOf(markets: MatchMarkets): CardMarketsSummary {
  const top = markets.top_scores[0];
  return {
    expected_home_goals: markets.expected_home_goals,
    expected_away_goals: markets.expected_away_goals,
    over_2_5: markets.over['2.5'],
    btts_yes: markets.btts_yes,
    top_score: `${top.home}-${top.away}`,
    odd_over25: markets.odds.over25,
    odd_under25: markets.odds.under25,
    odd_btts_yes: markets.odds.btts_yes,
    odd_btts_no: markets.odds.btts_no,
  };
}

/**
 * Card summaries of every row of a markets file (the cards join them when the published run loads).
 * Throws when the file is not a valid markets file.
 */
export async function readMarketsSummaries(body: Buffer): Promise<Map<number, CardMarketsSummary>> {
  const out = new Map<number, CardMarketsSummary>();
  for (const row of parseMarketsRows(await readParquet(body)))
    out.set(row.match_id, summaryOf(matchMarkets(row)));
  return out;
}

/** Every market of one markets-file row (the route's 200 body, matrix left out). */
export function matchMarkets(row: MarketsRow): MatchMarkets {
  const mk = marketsFromMatrix(scoreMatrix(row.expected_home_goals, row.expected_away_goals, row.rho), 5);
  const under: Record<string, number> = {};
  for (const [line, p] of Object.entries(mk.over)) under[line] = 1 - p;
  return {
    match_id: row.match_id,
    expected_home_goals: row.expected_home_goals,
    expected_away_goals: row.expected_away_goals,
    rho: row.rho,
    proba_home: mk.proba_home,
    proba_draw: mk.proba_draw,
    proba_away: mk.proba_away,
    over: mk.over,
    under,
    btts_yes: mk.btts_yes,
    btts_no: 1 - mk.btts_yes,
    dnb_home: mk.dnb_home,
    dnb_away: mk.dnb_away,
    asian: mk.asian,
    top_scores: mk.top_scores,
    model_stage: row.model_stage,
    model_run_id: row.model_run_id,
    training_cutoff: row.training_cutoff.toISOString(),
    odds: {
      over25: row.odd_over25,
      under25: row.odd_under25,
      btts_yes: row.odd_btts_yes,
      btts_no: row.odd_btts_no,
    },
  };
}

/** The 11 × 11 score matrix as nested arrays (row = home goals). */
export function scoreMatrixRows(
  m: Pick<MatchMarkets, 'expected_home_goals' | 'expected_away_goals' | 'rho'>,
) {
  const flat = scoreMatrix(m.expected_home_goals, m.expected_away_goals, m.rho);
  const out: number[][] = [];
  for (let h = 0; h < MATRIX_SIZE; h++) {
    out.push(Array.from(flat.subarray(h * MATRIX_SIZE, (h + 1) * MATRIX_SIZE)));
  }
  return out;
}

function price(v: unknown): number | null {
  const n = typeof v === 'number' ? v : v === null || v === undefined ? Number.NaN : Number(v);
  return Number.isFinite(n) && n > 1 ? n : null;
}

/** Parses the rows of a markets file (`predictions/markets.parquet`); throws on a malformed row. */
export function parseMarketsRows(rows: Record<string, unknown>[]): MarketsRow[] {
  return rows.map((r) => {
    const num = (k: string) => {
      const v = Number(r[k]);
      if (!Number.isFinite(v))
        throw new Error(`markets file: ${k} is not a number in match ${String(r.match_id)}`);
      return v;
    };
    const stage = String(r.model_stage);
    if (stage !== 'champion' && stage !== 'backtest') throw new Error(`markets file: model_stage ${stage}`);
    const cutoff =
      r.training_cutoff instanceof Date ? r.training_cutoff : new Date(String(r.training_cutoff));
    return {
      match_id: num('match_id'),
      expected_home_goals: num('expected_home_goals'),
      expected_away_goals: num('expected_away_goals'),
      rho: num('rho'),
      model_stage: stage,
      model_run_id: String(r.model_run_id),
      training_cutoff: cutoff,
      odd_over25: price(r.odd_over25),
      odd_under25: price(r.odd_under25),
      odd_btts_yes: price(r.odd_btts_yes),
      odd_btts_no: price(r.odd_btts_no),
    };
  });
}

/**
 * In-memory view of `predictions/markets.parquet` (the published run's copy): every match's markets
 * computed and serialised once per load, so a request is a map lookup. Polls the published-run pointer
 * every `refreshMs` (one HEAD when it did not move); a failed load keeps the previous copy serving.
 */
export class MarketsView {
  private entries = new Map<number, Entry>();
  private summaries = new Map<number, CardMarketsSummary>();
  private state: ViewStatus = { state: 'pending', etag: null, rows: 0, loadedAt: null, lastError: null };
  private pointerEtag: string | null | undefined = undefined;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly store: ObjectStore,
    private readonly refreshMs: number,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    await this.refresh();
    this.schedule();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
  }

  /** Pre-serialised 200 body of one match, undefined when the file has no row for it. */
  json(matchId: number): Buffer | undefined {
    return this.entries.get(matchId)?.json;
  }

  markets(matchId: number): MatchMarkets | undefined {
    const json = this.entries.get(matchId)?.json;
    return json === undefined ? undefined : (JSON.parse(json.toString('utf8')) as MatchMarkets);
  }

  /** The card summary of one match, undefined when there is none. */
  summary(matchId: number): CardMarketsSummary | undefined {
    return this.summaries.get(matchId);
  }

  /** True once a markets file is loaded. */
  loaded(): boolean {
    return this.state.state === 'loaded';
  }

  status(): ViewStatus {
    return { ...this.state };
  }

  /** Follows the published-run pointer and reloads the markets file when it changed. */
  async refresh(): Promise<void> {
    try {
      const etag = await publishedEtag(this.store);
      // A published run's artifacts are immutable: an unmoved pointer means nothing to reload.
      if (etag !== null && etag === this.pointerEtag && this.state.state !== 'pending') return;
      const pointer = etag === null ? null : await readPublished(this.store);
      const ref = servedRef(pointer, 'markets');
      if (!ref) {
        this.replace(new Map(), new Map(), 'missing', null);
        this.pointerEtag = etag;
        return;
      }
      const head = await this.store.head(ref.bucket, ref.key);
      if (!head) {
        this.replace(new Map(), new Map(), 'missing', null);
        this.pointerEtag = etag;
        return;
      }
      if (head.etag === this.state.etag) {
        this.pointerEtag = etag;
        return;
      }
      const obj = await this.store.get(ref.bucket, ref.key);
      if (!obj) return;
      const rows = parseMarketsRows(await readParquet(obj.body));
      const entries = new Map<number, Entry>();
      const summaries = new Map<number, CardMarketsSummary>();
      for (const row of rows) {
        const markets = matchMarkets(row);
        entries.set(row.match_id, { json: Buffer.from(JSON.stringify(markets)) });
        summaries.set(row.match_id, summaryOf(markets));
      }
      this.replace(entries, summaries, 'loaded', obj.etag);
      this.pointerEtag = etag;
      this.log.info({ rows: rows.length, etag: obj.etag }, 'serving: markets loaded');
    } catch (err) {
      this.state = { ...this.state, lastError: err instanceof Error ? err.message : String(err) };
      this.log.warn(
        { err: this.state.lastError },
        'serving: markets file not loaded; keeping the previous copy',
      );
    }
  }

  private replace(
    entries: Map<number, Entry>,
    summaries: Map<number, CardMarketsSummary>,
    state: 'loaded' | 'missing',
    etag: string | null,
  ): void {
    this.entries = entries;
    this.summaries = summaries;
    this.state = { state, etag, rows: entries.size, loadedAt: new Date(), lastError: null };
  }

  private schedule(): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      this.refresh().finally(() => this.schedule());
    }, this.refreshMs);
    this.timer.unref();
  }
}
