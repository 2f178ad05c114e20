import type { Config } from '../config.js';
import type { Queryable } from '../db/index.js';
import { isMatchcastError, KEYS, MatchcastError } from '../domain/index.js';
import type { Logger } from '../logger.js';
import { artifactLoadFailuresTotal } from '../metrics.js';
import {
  type ArtifactName,
  type ArtifactRef,
  type PublishedRun,
  publishedSeq,
  readPublished,
  readVerified,
} from '../runs/index.js';
import { type ObjectStore, readParquet } from '../storage/index.js';
import { buildCardsBody } from './cards.js';
import { encodeBody, encodeBodySync } from './encoded-body.js';
import { type MarketsTable, readMarketsFile } from './markets-view.js';
import { parseOddsRows } from './odds.js';
import { byKickOff, type PredictionRow, PredictionsView, parsePredictionRows } from './predictions.js';
import { parseRegionRoiCsv } from './region-roi.js';
import type { EncodedBody, OddsRow, RegionRoiRow, ServingViews, ViewStatus, Views } from './types.js';

/** Options of {@link createServingViews}. */
export interface ServingViewsOptions {
  /**
   * Largest pre-serialised body kept uncompressed in memory; larger ones keep only gzip and br and
   * stream identity responses by decompressing. Default `IDENTITY_MAX_BYTES` (8 MiB).
   */
  identityMaxBytes?: number;
}

/** Artifact label of `matchcast_artifact_load_failures_total`. */
export type ServedArtifact = 'predictions' | 'odds' | 'region_roi' | 'markets';

/**
 * How long a `/predict/region-roi/` request waits for a due re-check before answering with the copy
 * it has (the re-check carries on in the background). Keeps a slow store off the request path.
 */
const ROI_REQUEST_WAIT_MS = 1000;

const PREDICTIONS_REF = `${KEYS.predictions.bucket}/${KEYS.predictions.key}`;

interface Loaded<T> {
  data: T;
  etag: string;
  loadedAt: Date;
}

/** One artifact's bookkeeping. `current` is what serves; it changes only after a full, valid load. */
interface Slot<T> {
  current: Loaded<T> | null;
  /** True once the store said the object does not exist (and nothing is being served). */
  missing: boolean;
  /** The etag of a copy that failed validation: not retried until the object changes again. */
  rejectedEtag: string | null;
  lastError: string | null;
  /** Set while the store is failing, so that an outage logs once, not once per poll. */
  storeDown: boolean;
}

function slot<T>(): Slot<T> {
  return { current: null, missing: false, rejectedEtag: null, lastError: null, storeDown: false };
}

/**
 * A validated artifact: its file bytes (a few MB; re-parsed when the other artifact of the cards
 * join changes) and, until the next snapshot is built, its parsed rows.
 */
interface Parsed<R> {
  raw: Buffer;
  count: number;
  rows: R[] | null;
}

type Ref = Pick<ArtifactRef, 'bucket' | 'key' | 'size' | 'sha256'>;

/** The served run as the views last read it. */
export interface ServedRunInfo {
  run_id: string;
  /** Fingerprint of the feature definition of the run's features (null when unknown). */
  features_fingerprint: string | null;
  published_at: string;
}

/** Everything a request reads, replaced as one object so a reader never sees half a reload. */
interface Snapshot {
  predictions: PredictionsView | null;
  cards: EncodedBody | null;
  odds: EncodedBody;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

class PrecomputedViews implements Views {
  private snapshot: Snapshot;
  private readonly predictions = slot<Parsed<PredictionRow>>();
  private readonly odds = slot<Parsed<OddsRow>>();
  private readonly roi = slot<readonly RegionRoiRow[]>();
  /** The goals markets: the markets route's bodies and the card summaries; absent file = null fields. */
  private readonly markets = slot<MarketsTable>();
  private roiRows: readonly RegionRoiRow[] = [];
  /**
   * Whether the odds body / ROI rows were ever built from the store's answer (a file, or "no such
   * file"). Until then an empty list would claim "no odds" while the store has not answered (down
   * since start-up, or the first load after it returned still running): 503 instead.
   */
  private oddsReady = false;
  private roiReady = false;
  private roiCheckedAt = Number.NEGATIVE_INFINITY;
  private roiInflight: Promise<void> | null = null;
  /** Pointer sequence number last acted on (`undefined`: never polled; null: no run published). */
  private pointerSeq: number | null | undefined = undefined;
  private pointer: PublishedRun | null = null;
  /** The run the current snapshot was built from (null: legacy keys or nothing). */
  private served: ServedRunInfo | null = null;
  private refs: Record<'predictions' | 'odds' | 'roiByRegion' | 'markets', Ref | null> = {
    predictions: null,
    odds: null,
    roiByRegion: null,
    markets: null,
  };
  private chain: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private started = false;

  constructor(
    private readonly db: Queryable,
    private readonly store: ObjectStore,
    private readonly config: Config,
    private readonly log: Logger,
    private readonly emptyList: EncodedBody,
    private readonly options: ServingViewsOptions,
  ) {
    this.snapshot = { predictions: null, cards: null, odds: emptyList };
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    // The ROI check reads the run the pointer names: after the first poll, not beside it.
    await this.refresh();
    await this.checkRoi();
    this.schedule();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await Promise.allSettled([this.chain, this.roiInflight]);
  }

  refresh(): Promise<void> {
    this.chain = this.chain.then(() => this.pollOnce());
    return this.chain;
  }

  predictionsBody(): EncodedBody {
    return this.requirePredictions().bulk;
  }

  precomputedJson(matchId: number): Buffer | undefined {
    return this.requirePredictions().get(matchId);
  }

  cardsBody(): EncodedBody {
    const { cards } = this.snapshot;
    if (!cards) throw this.unavailable();
    return cards;
  }

  oddsBody(): EncodedBody {
    // A copy that failed validation is not a store outage: it keeps the documented `[]`.
    if (!this.oddsReady && this.odds.rejectedEtag === null) throw this.storeUnavailable('odds', this.odds);
    return this.snapshot.odds;
  }

  servedRun(): ServedRunInfo | null {
    return this.served;
  }

  async regionRoi(): Promise<readonly RegionRoiRow[]> {
    if (!this.closed && Date.now() - this.roiCheckedAt >= this.config.roiRecheckMs) {
      const check = this.checkRoi();
      let timer: NodeJS.Timeout | undefined;
      const wait = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, ROI_REQUEST_WAIT_MS);
      });
      await Promise.race([check, wait]);
      clearTimeout(timer);
    }
    if (!this.roiReady && this.roi.rejectedEtag === null) throw this.storeUnavailable('ROI', this.roi);
    return this.roiRows;
  }

  marketsJson(matchId: number): Buffer | undefined {
    return this.markets.current?.data.json.get(matchId);
  }

  status(): { predictions: ViewStatus; odds: ViewStatus; regionRoi: ViewStatus; markets: ViewStatus } {
    return {
      predictions: this.statusOf(this.predictions, (d) => d.count),
      odds: this.statusOf(this.odds, (d) => d.count),
      regionRoi: this.statusOf(this.roi, (d) => d.length),
      markets: this.statusOf(this.markets, (d) => d.json.size),
    };
  }

  private statusOf<T>(s: Slot<T>, count: (data: T) => number): ViewStatus {
    return {
      state: s.current ? 'loaded' : s.missing ? 'missing' : 'pending',
      etag: s.current?.etag ?? null,
      rows: s.current ? count(s.current.data) : 0,
      loadedAt: s.current?.loadedAt ?? null,
      lastError: s.lastError,
    };
  }

  private requirePredictions(): PredictionsView {
    const view = this.snapshot.predictions;
    if (!view) throw this.unavailable();
    return view;
  }

  /**
   * An artifact never loaded because the store could not be reached: not the same as an absent file
   * (`[]`), which would tell a client "no odds" / "no ROI" while the file exists (e.g. an API
   * started during an object-store outage). Once loaded, an outage keeps serving the loaded copy.
   */
  private storeUnavailable(what: string, s: Slot<unknown>): MatchcastError {
    return new MatchcastError(
      'MC_ERR_STORE_UNAVAILABLE',
      s.storeDown || s.lastError
        ? `The ${what} file could not be loaded: ${s.lastError ?? 'object store unavailable'}; retry shortly`
        : `The ${what} file is being loaded (the object store just became reachable); retry shortly`,
    );
  }

  private setRoiRows(): void {
    this.roiRows = this.roi.current?.data ?? [];
    this.roiReady = true;
  }

  private unavailable(): MatchcastError {
    const s = this.predictions;
    let detail: string;
    if (s.missing) {
      // `pipeline run` works while `matchcast start` serves: the CLI hands the job to the server.
      detail = `The predictions file ${PREDICTIONS_REF} does not exist yet; run \`npx matchcast pipeline run\` to produce it (beside a running \`matchcast start\` too: the job runs inside the server), then \`npx matchcast registry promote\` if no champion is signed off yet.`;
    } else if (s.lastError) {
      detail = `The predictions file ${PREDICTIONS_REF} could not be loaded: ${s.lastError}`;
    } else {
      detail = `The predictions file ${PREDICTIONS_REF} is not loaded yet; retry shortly.`;
    }
    return new MatchcastError('MC_ERR_PREDICTIONS_UNAVAILABLE', detail);
  }

  private schedule(): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      this.refresh().finally(() => this.schedule());
    }, this.config.viewRefreshMs);
    // Polling alone must not keep a process (a CLI, a test) alive.
    this.timer.unref();
  }

  /**
   * Reads the published-run pointer (one small query when it did not move). Returns false when
   * nothing can have changed: a published run's artifacts are immutable, so an unmoved pointer means
   * no reload. A database that cannot be read keeps what serves.
   */
  private async followPointer(): Promise<boolean> {
    let seq: number | null;
    try {
      seq = await publishedSeq(this.db);
    } catch (err) {
      this.log.debug({ err: describe(err) }, 'serving: published-run pointer unreadable');
      return this.pointerSeq === undefined;
    }
    // An unmoved pointer changes nothing, unless a file of it could not be read (store down): retry.
    if (seq === this.pointerSeq)
      return [this.predictions, this.odds, this.roi, this.markets].some((s) => s.storeDown);
    if (seq === null) {
      this.pointerSeq = null;
      this.pointer = null;
    } else {
      try {
        const pointer = await readPublished(this.db);
        this.pointer = pointer;
        this.pointerSeq = pointer?.seq ?? null;
      } catch (err) {
        this.log.warn({ err: describe(err) }, 'serving: published-run pointer unreadable; keeping the views');
        return false;
      }
    }
    const ref = (name: ArtifactName): Ref | null => this.pointer?.artifacts[name] ?? null;
    this.refs = {
      predictions: ref('predictions'),
      odds: ref('odds'),
      roiByRegion: ref('roiByRegion'),
      markets: ref('markets'),
    };
    return true;
  }

  /**
   * One poll: follow the pointer, load what changed, rebuild what depends on it, swap once. The
   * predictions, cards, odds and ROI of a run become visible together (one synchronous swap).
   */
  private async pollOnce(): Promise<void> {
    if (this.closed) return;
    if (!(await this.followPointer())) return;
    const refs = this.refs;
    const pointer = this.pointer;
    const [oddsChanged, predictionsChanged, roiChanged, marketsChanged] = await Promise.all([
      this.sync('odds', this.odds, refs.odds, (buf) => this.parseOdds(buf)),
      this.sync('predictions', this.predictions, refs.predictions, (buf) => this.parsePredictions(buf)),
      pointer
        ? this.sync('region_roi', this.roi, refs.roiByRegion, async (buf) => parseRegionRoiCsv(buf))
        : Promise.resolve(false),
      this.sync('markets', this.markets, refs.markets, readMarketsFile),
    ]);
    const servedNow: ServedRunInfo | null = pointer
      ? {
          run_id: pointer.run_id,
          features_fingerprint: pointer.features_fingerprint,
          published_at: pointer.published_at,
        }
      : null;
    if (!oddsChanged && !predictionsChanged && !marketsChanged) {
      if (roiChanged) this.setRoiRows();
      this.served = servedNow;
      return;
    }
    const pred = this.predictions.current?.data ?? null;
    const odds = this.odds.current?.data ?? null;
    try {
      const predRows = pred ? (pred.rows ?? (await this.parsePredictions(pred.raw)).rows ?? []) : null;
      const oddsRows = odds ? (odds.rows ?? (await this.parseOdds(odds.raw)).rows ?? []) : [];
      const oddsById = new Map<number, OddsRow>();
      for (const r of oddsRows) oddsById.set(r.match_id, r);
      const next: Snapshot = {
        predictions: predictionsChanged
          ? predRows
            ? await PredictionsView.build(predRows, this.options.identityMaxBytes)
            : null
          : this.snapshot.predictions,
        cards: predRows
          ? await buildCardsBody(
              predRows,
              oddsById,
              this.config.bookmakerUrlTemplate,
              this.options.identityMaxBytes,
              this.markets.current?.data.summaries,
            )
          : null,
        odds: oddsChanged
          ? odds
            ? await encodeBody(JSON.stringify(oddsRows), this.options.identityMaxBytes)
            : this.emptyList
          : this.snapshot.odds,
      };
      this.snapshot = next;
      if (oddsChanged) this.oddsReady = true;
      if (roiChanged) this.setRoiRows();
      this.served = servedNow;
    } catch (err) {
      // Cannot happen with validated rows; keep the previous snapshot whole rather than serve a mix.
      this.log.error(
        { err: describe(err) },
        'serving: building the views failed; keeping the previous views',
      );
    } finally {
      // Parsed rows are only needed to build a snapshot; the raw file is what stays.
      if (pred) pred.rows = null;
      if (odds) odds.rows = null;
    }
  }

  /**
   * Brings one slot in line with the store. Returns true when what it serves changed. A store
   * failure keeps the slot as it is; a copy that fails validation is counted, logged and skipped.
   */
  private async sync<T>(
    artifact: ServedArtifact,
    s: Slot<T>,
    ref: Ref | null,
    load: (body: Buffer) => Promise<T>,
  ): Promise<boolean> {
    const where = ref ? `${ref.bucket}/${ref.key}` : `(no ${artifact} in the published run)`;
    // A published file is never rewritten: its key and recorded hash name its content.
    const identity = ref ? `${ref.key}#${ref.sha256}` : null;
    try {
      if (identity !== null && (identity === s.current?.etag || identity === s.rejectedEtag)) return false;
      let obj: Awaited<ReturnType<typeof readVerified>> = null;
      let integrity: string | null = null;
      try {
        obj = ref ? await readVerified(this.store, ref) : null;
      } catch (err) {
        if (!isMatchcastError(err, 'MC_ERR_ARTIFACT_INTEGRITY')) throw err;
        integrity = describe(err);
      }
      if (s.storeDown) this.log.info({ artifact }, 'serving: object store reachable again');
      s.storeDown = false;
      if (integrity !== null) {
        s.rejectedEtag = identity;
        s.lastError = integrity;
        artifactLoadFailuresTotal.inc({ artifact });
        this.log.error(
          { artifact, key: where, err: integrity, serving: s.current?.etag ?? null },
          'serving: artifact does not match its published hash; the previous copy keeps serving',
        );
        return false;
      }
      if (!obj) {
        if (s.missing && !s.current) return false;
        if (s.current) this.log.warn({ artifact, key: where }, 'serving: artifact removed from the store');
        s.current = null;
        s.missing = true;
        s.rejectedEtag = null;
        s.lastError = null;
        return true;
      }
      const started = performance.now();
      let data: T;
      try {
        data = await load(obj.body);
      } catch (err) {
        s.rejectedEtag = identity;
        s.lastError = describe(err);
        artifactLoadFailuresTotal.inc({ artifact });
        this.log.error(
          { artifact, key: where, err: s.lastError, serving: s.current?.etag ?? null },
          'serving: artifact failed validation; the previous copy keeps serving',
        );
        return false;
      }
      s.current = { data, etag: identity!, loadedAt: new Date() };
      s.missing = false;
      s.rejectedEtag = null;
      s.lastError = null;
      this.log.info(
        {
          artifact,
          key: where,
          bytes: obj.size,
          ms: Math.round(performance.now() - started),
        },
        'serving: artifact loaded',
      );
      return true;
    } catch (err) {
      if (!s.storeDown) {
        this.log.warn(
          { artifact, key: where, err: describe(err) },
          'serving: object store unavailable; keeping the loaded views',
        );
      }
      s.storeDown = true;
      if (!s.current) s.lastError = `object store unavailable (${describe(err)})`;
      return false;
    }
  }

  private async parsePredictions(raw: Buffer): Promise<Parsed<PredictionRow>> {
    const rows = parsePredictionRows(await readParquet(raw)).sort(byKickOff);
    return { raw, count: rows.length, rows };
  }

  private async parseOdds(raw: Buffer): Promise<Parsed<OddsRow>> {
    const rows = parseOddsRows(await readParquet(raw));
    return { raw, count: rows.length, rows };
  }

  /** Re-checks the ROI CSV (single flight); `roiCheckedAt` is set first so checks are at most one per interval. */
  private checkRoi(): Promise<void> {
    if (this.roiInflight) return this.roiInflight;
    this.roiCheckedAt = Date.now();
    this.roiInflight = (async () => {
      // With a published run the ROI moves with the pointer (pollOnce); this re-check then only
      // confirms the run's immutable copy. Without one, the legacy key is re-read here.
      const changed = await this.sync('region_roi', this.roi, this.refs.roiByRegion, async (buf) =>
        parseRegionRoiCsv(buf),
      );
      if (changed) this.setRoiRows();
    })().finally(() => {
      this.roiInflight = null;
    });
    return this.roiInflight;
  }
}

/** The serving views of the context, checked once at route registration (AppContext types them as the base port). */
export function asViews(v: ServingViews): Views {
  const candidate = v as Partial<Views>;
  if (typeof candidate.precomputedJson !== 'function' || typeof candidate.predictionsBody !== 'function') {
    throw new Error('ctx.views must come from createServingViews (src/serving)');
  }
  return v as Views;
}

/**
 * Creates the precomputed views over the object store. Call `start()` once: it
 * loads every artifact (never throws: a missing or unreadable file leaves that view empty or
 * unavailable) and then polls every `config.viewRefreshMs`.
 */
export function createServingViews(
  backends: { db: Queryable; store: ObjectStore },
  config: Config,
  log: Logger,
  options: ServingViewsOptions = {},
): Views {
  return new PrecomputedViews(backends.db, backends.store, config, log, encodeBodySync('[]'), options);
}
