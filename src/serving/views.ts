import { setTimeout as delay } from 'node:timers/promises';
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
import type { RegionRoi } from '../schemas/index.js';
import type { ObjectStore } from '../storage/index.js';
import { type EncodedBody, encodeBodySync } from './encoded-body.js';
import type { JsonIndex } from './json-index.js';
import type { PredictionsView } from './predictions.js';
import { parseRegionRoiCsv } from './region-roi.js';
import { describe } from './validate.js';
import type { ArtifactInput, BuildJob, BuiltArtifact, BuiltViews, Verdict } from './view-build.js';
import { ViewBuilder } from './view-builder.js';
import { ViewsCache } from './views-cache.js';

export interface ServingViewsOptions {
  /** Largest body kept uncompressed in memory (larger ones only as gzip and br); default 8 MiB. */
  identityMaxBytes?: number;
  /** Module run by the view-builder thread (tests of a failing builder). */
  builderEntry?: URL;
  /** Folder of the built-views cache; default none. */
  cacheDir?: string;
  /** How long builds must have been quiet before the cache is written, ms. */
  cacheWriteDelayMs?: number;
}

/** A replay builds often: the cache is written once builds have been quiet this long. */
const CACHE_WRITE_DELAY_MS = 10_000;

/** Artifact label of `matchcast_artifact_load_failures_total`. */
type ServedArtifact = 'predictions' | 'odds' | 'region_roi' | 'markets';

/** How long a region-ROI request waits for a due re-check before answering with its copy. */
const ROI_REQUEST_WAIT_MS = 1000;

const PREDICTIONS_REF = `${KEYS.predictions.bucket}/${KEYS.predictions.key}`;

/** The published run the views serve. */
export type ServedRun = Pick<PublishedRun, 'run_id' | 'features_fingerprint' | 'published_at'>;

/** Where a view stands, for diagnostics. */
export interface ViewStatus {
  state: 'loaded' | 'missing' | 'pending';
  etag: string | null;
  rows: number;
  loadedAt: Date | null;
  /** Last load or poll failure (kept while the previous copy serves). */
  lastError: string | null;
}

const BUILT: readonly BuiltArtifact[] = ['predictions', 'odds', 'markets'];

const EMPTY_LIST = encodeBodySync('[]');

interface Loaded<T> {
  data: T;
  rows: number;
  etag: string;
  loadedAt: Date;
}

type NewFile = { kind: 'new'; body: Buffer; identity: string; where: string; size: number };
type Fetched = { kind: 'same' } | { kind: 'removed'; where: string } | NewFile;

/** One artifact's bookkeeping. `current` is what serves; it changes only after a full, valid load. */
class Slot<T> {
  current: Loaded<T> | null = null;
  /** True once the store said the object does not exist (and nothing is being served). */
  missing = false;
  /** A copy that failed validation: not retried until the object changes again. */
  rejectedEtag: string | null = null;
  lastError: string | null = null;
  /** Set while the store is failing, so that an outage logs once, not once per poll. */
  storeDown = false;
  /** A copy whose build stopped the builder thread once: a second stop rejects it. */
  crashedEtag: string | null = null;

  constructor(
    readonly artifact: ServedArtifact,
    private readonly name: ArtifactName,
    private readonly log: Logger,
  ) {}

  status(): ViewStatus {
    return {
      state: this.current ? 'loaded' : this.missing ? 'missing' : 'pending',
      etag: this.current?.etag ?? null,
      rows: this.current?.rows ?? 0,
      loadedAt: this.current?.loadedAt ?? null,
      lastError: this.lastError,
    };
  }

  removed(where: string): true {
    if (this.current)
      this.log.warn({ artifact: this.artifact, key: where }, 'serving: artifact removed from the store');
    return this.settle(null);
  }

  loaded(data: T, rows: number, f: NewFile, ms?: number): true {
    this.log.info({ artifact: this.artifact, key: f.where, bytes: f.size, ms }, 'serving: artifact loaded');
    return this.settle({ data, rows, etag: f.identity, loadedAt: new Date() });
  }

  private settle(current: Loaded<T> | null): true {
    this.current = current;
    this.missing = current === null;
    this.rejectedEtag = null;
    this.lastError = null;
    return true;
  }

  reject(f: Pick<NewFile, 'identity' | 'where'>, error: string, why = 'failed validation'): void {
    this.rejectedEtag = f.identity;
    this.lastError = error;
    artifactLoadFailuresTotal.inc({ artifact: this.artifact });
    this.log.error(
      { artifact: this.artifact, key: f.where, err: error, serving: this.current?.etag ?? null },
      `serving: artifact ${why}; the previous copy keeps serving`,
    );
  }

  private storeUp(): void {
    if (this.storeDown) this.log.info({ artifact: this.artifact }, 'serving: object store reachable again');
    this.storeDown = false;
  }

  /** The file the published run names, if it changed and matches its published hash; else `same`. */
  async fetch(store: ObjectStore, pointer: PublishedRun | null): Promise<Fetched> {
    const ref: ArtifactRef | null = pointer?.artifacts[this.name] ?? null;
    const where = ref ? `${ref.bucket}/${ref.key}` : `(no ${this.artifact} in the published run)`;
    // A published file is never rewritten: its key and recorded hash name its content.
    const identity = ref ? `${ref.key}#${ref.sha256}` : null;
    if (identity !== null && (identity === this.current?.etag || identity === this.rejectedEtag))
      return { kind: 'same' };
    let obj: Awaited<ReturnType<typeof readVerified>> = null;
    try {
      obj = ref ? await readVerified(store, ref) : null;
    } catch (err) {
      if (isMatchcastError(err, 'MC_ERR_ARTIFACT_INTEGRITY')) {
        this.storeUp();
        this.reject({ identity: identity!, where }, describe(err), 'does not match its published hash');
        return { kind: 'same' };
      }
      if (!this.storeDown)
        this.log.warn(
          { artifact: this.artifact, key: where, err: describe(err) },
          'serving: object store unavailable; keeping the loaded views',
        );
      this.storeDown = true;
      if (!this.current) this.lastError = `object store unavailable (${describe(err)})`;
      return { kind: 'same' };
    }
    this.storeUp();
    if (!obj) return this.missing && !this.current ? { kind: 'same' } : { kind: 'removed', where };
    return { kind: 'new', body: obj.body, identity: identity!, where, size: obj.size };
  }
}

/** Everything a request reads, replaced as one object so a reader never sees half a reload. */
interface Snapshot {
  predictions: PredictionsView | null;
  cards: EncodedBody | null;
  odds: EncodedBody;
  /** The goals-markets route bodies by match; null without a markets file. */
  markets: JsonIndex | null;
}

/** The views the routes read: memory reads, no store call at request time but the bounded ROI re-check. */
export class Views {
  private snapshot: Snapshot;
  /** The built files' bytes (the cards are rebuilt from them when one of their files changes). */
  private readonly built: Record<BuiltArtifact, Slot<Buffer>>;
  private readonly roi: Slot<readonly RegionRoi[]>;
  private readonly builder: ViewBuilder;
  private readonly cache: ViewsCache | null;
  private cacheTimer: NodeJS.Timeout | null = null;
  private cachedKey: string | null = null;
  /** Set when a build failed for a reason other than its files: the next poll builds again. */
  private rebuild = false;
  /** The ROI file of a run whose build has not swapped yet: its rows swap with that build. */
  private roiPending = false;
  private roiRows: readonly RegionRoi[] = [];
  /** Whether odds / ROI were ever built from the store's answer: until then 503, not `[]`. */
  private oddsReady = false;
  private roiReady = false;
  private roiCheckedAt = Number.NEGATIVE_INFINITY;
  private roiInflight: Promise<void> | null = null;
  /** Pointer sequence last acted on (`undefined`: never polled; null: no run published). */
  private pointerSeq: number | null | undefined = undefined;
  private pointer: PublishedRun | null = null;
  private served: ServedRun | null = null;
  private chain: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private started = false;

  constructor(
    private readonly db: Queryable,
    private readonly store: ObjectStore,
    private readonly config: Config,
    private readonly log: Logger,
    private readonly options: ServingViewsOptions,
  ) {
    this.snapshot = { predictions: null, cards: null, odds: EMPTY_LIST, markets: null };
    this.built = {
      predictions: new Slot('predictions', 'predictions', log),
      odds: new Slot('odds', 'odds', log),
      markets: new Slot('markets', 'markets', log),
    };
    this.roi = new Slot('region_roi', 'roiByRegion', log);
    this.builder = new ViewBuilder(options.builderEntry);
    this.cache = options.cacheDir ? new ViewsCache(options.cacheDir, log) : null;
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
    clearTimeout(this.timer ?? undefined);
    clearTimeout(this.cacheTimer ?? undefined);
    // A build still running fails at once (the poll that awaits it sees `closed` and keeps quiet).
    await this.builder.close();
    await Promise.allSettled([this.chain, this.roiInflight]);
  }

  /** Polls the store now and waits for any reload (tests, admin tooling). */
  refresh(): Promise<void> {
    this.chain = this.chain.then(() => this.pollOnce());
    return this.chain;
  }

  /** Bulk body of spec §2.1; like every predictions read, MC_ERR_PREDICTIONS_UNAVAILABLE without a file. */
  predictionsBody(): EncodedBody {
    return this.requirePredictions().bulk;
  }

  /** Pre-serialised spec §2.2 JSON of one match; `undefined` when the match is not in the file. */
  precomputedJson(matchId: number): Buffer | undefined {
    return this.requirePredictions().records.get(matchId);
  }

  /** Match cards (fields in docs/serving-precomputed.md). */
  cardsBody(): EncodedBody {
    const { cards } = this.snapshot;
    if (!cards) throw this.unavailable();
    return cards;
  }

  /** Spec §2.5 records; `[]` when the odds file does not exist. */
  oddsBody(): EncodedBody {
    // A copy that failed validation is not a store outage: it keeps the documented `[]`.
    const odds = this.built.odds;
    if (!this.oddsReady && odds.rejectedEtag === null) throw this.storeUnavailable('odds', odds);
    return this.snapshot.odds;
  }

  /** The published run the views serve (null: none yet); live answers are cached per served run. */
  servedRun(): ServedRun | null {
    return this.served;
  }

  /** Spec §2.6 records, re-checked at most every `config.roiRecheckMs`; `[]` when absent. */
  async regionRoi(): Promise<readonly RegionRoi[]> {
    if (!this.closed && Date.now() - this.roiCheckedAt >= this.config.roiRecheckMs)
      await Promise.race([this.checkRoi(), delay(ROI_REQUEST_WAIT_MS, undefined, { ref: false })]);
    if (!this.roiReady && this.roi.rejectedEtag === null) throw this.storeUnavailable('ROI', this.roi);
    return this.roiRows;
  }

  /** Pre-serialised goals markets of one match (matrix left out); `undefined` without a row for it. */
  marketsJson(matchId: number): Buffer | undefined {
    return this.snapshot.markets?.get(matchId);
  }

  status(): { predictions: ViewStatus; odds: ViewStatus; regionRoi: ViewStatus; markets: ViewStatus } {
    return {
      predictions: this.built.predictions.status(),
      odds: this.built.odds.status(),
      regionRoi: this.roi.status(),
      markets: this.built.markets.status(),
    };
  }

  private requirePredictions(): PredictionsView {
    const view = this.snapshot.predictions;
    if (!view) throw this.unavailable();
    return view;
  }

  /** Never loaded because the store could not be reached: unlike an absent file (`[]`), that is 503. */
  private storeUnavailable(what: string, s: Slot<unknown>): MatchcastError {
    return new MatchcastError(
      'MC_ERR_STORE_UNAVAILABLE',
      s.storeDown || s.lastError
        ? `The ${what} file could not be loaded: ${s.lastError ?? 'object store unavailable'}; retry shortly`
        : `The ${what} file is being loaded (the object store just became reachable); retry shortly`,
    );
  }

  private swapRoi(): void {
    if (this.roiPending) this.setRoiRows();
    this.roiPending = false;
  }

  private setRoiRows(): void {
    this.roiRows = this.roi.current?.data ?? [];
    this.roiReady = true;
  }

  private unavailable(): MatchcastError {
    const s = this.built.predictions;
    const file = `The predictions file ${PREDICTIONS_REF}`;
    return new MatchcastError(
      'MC_ERR_PREDICTIONS_UNAVAILABLE',
      s.missing
        ? `${file} does not exist yet; run \`npx matchcast pipeline run\` to produce it (beside a running \`matchcast start\` too: the job runs inside the server), then \`npx matchcast registry promote\` if no champion is signed off yet.`
        : s.lastError
          ? `${file} could not be loaded: ${s.lastError}`
          : `${file} is not loaded yet; retry shortly.`,
    );
  }

  private schedule(): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      this.refresh().finally(() => this.schedule());
    }, this.config.viewRefreshMs);
    // Polling alone must not keep a process (a CLI, a test) alive.
    this.timer.unref();
  }

  /** Reads the published-run pointer; false when nothing can have changed (published files are immutable). */
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
      return this.rebuild || [...Object.values(this.built), this.roi].some((s) => s.storeDown);
    try {
      this.pointer = seq === null ? null : await readPublished(this.db);
    } catch (err) {
      this.log.warn({ err: describe(err) }, 'serving: published-run pointer unreadable; keeping the views');
      return false;
    }
    this.pointerSeq = this.pointer?.seq ?? null;
    return true;
  }

  /** One poll: read what changed, build on the builder thread, then one synchronous swap of the whole run. */
  private async pollOnce(): Promise<void> {
    if (this.closed) return;
    if (!(await this.followPointer())) return;
    this.rebuild = false;
    const pointer = this.pointer;
    const [odds, predictions, roiLoaded, markets] = await Promise.all([
      this.built.odds.fetch(this.store, pointer),
      this.built.predictions.fetch(this.store, pointer),
      pointer ? this.syncRoi() : Promise.resolve(false),
      this.built.markets.fetch(this.store, pointer),
    ]);
    const servedNow: ServedRun | null = pointer && {
      run_id: pointer.run_id,
      features_fingerprint: pointer.features_fingerprint,
      published_at: pointer.published_at,
    };
    const fetched = { predictions, odds, markets };
    if (roiLoaded) this.roiPending = true;
    if (predictions.kind === 'same' && odds.kind === 'same' && markets.kind === 'same') {
      this.swapRoi();
      this.served = servedNow;
      return;
    }
    const input = (name: BuiltArtifact): ArtifactInput => ({
      current: this.built[name].current?.data ?? null,
      change: fetched[name].kind,
      ...(fetched[name].kind === 'new' ? { next: fetched[name].body } : {}),
    });
    const job: BuildJob = {
      predictions: input('predictions'),
      odds: input('odds'),
      markets: input('markets'),
      bookmakerUrlTemplate: this.config.bookmakerUrlTemplate,
      identityMaxBytes: this.options.identityMaxBytes,
    };
    const started = performance.now();
    let built: BuiltViews | null = await this.fromCache(fetched);
    if (!built) {
      try {
        built = await this.builder.build(job);
      } catch (err) {
        if (this.closed) return;
        this.buildFailed(fetched, describe(err));
        return;
      }
    }
    if (this.closed) return;
    const ms = Math.round(performance.now() - started);
    const [predictionsChanged, oddsChanged, marketsChanged] = BUILT.map((name) =>
      this.apply(name, fetched[name], built.verdicts[name], ms),
    );
    if (predictionsChanged || oddsChanged || marketsChanged) {
      const keep = this.snapshot;
      this.snapshot = {
        predictions: built.predictions === undefined ? keep.predictions : built.predictions,
        cards: built.cards === undefined ? keep.cards : built.cards,
        odds: built.odds === undefined ? keep.odds : (built.odds ?? EMPTY_LIST),
        markets: built.markets === undefined ? keep.markets : built.markets,
      };
      if (oddsChanged) this.oddsReady = true;
      this.scheduleCacheWrite();
    }
    this.swapRoi();
    this.served = servedNow;
  }

  /** The cache key of views built from these file identities with this process's settings. */
  private cacheKey(ids: Record<BuiltArtifact, string | null>): string {
    return ViewsCache.key({
      ...ids,
      bookmakerUrlTemplate: this.config.bookmakerUrlTemplate,
      identityMaxBytes: this.options.identityMaxBytes ?? null,
    });
  }

  /** The cached build of a first load; the files were read and verified all the same. */
  private async fromCache(fetched: Record<BuiltArtifact, Fetched>): Promise<BuiltViews | null> {
    if (!this.cache || BUILT.some((name) => this.built[name].current)) return null;
    const ids = {} as Record<BuiltArtifact, string | null>;
    for (const name of BUILT) {
      const f = fetched[name];
      if (f.kind === 'same') return null;
      ids[name] = f.kind === 'new' ? f.identity : null;
    }
    const key = this.cacheKey(ids);
    const views = await this.cache.read(key);
    if (views) {
      this.cachedKey = key;
      this.log.info({ key }, 'serving: views read from the cache');
    }
    return views;
  }

  private scheduleCacheWrite(): void {
    if (!this.cache || this.closed) return;
    if (this.cacheTimer) clearTimeout(this.cacheTimer);
    this.cacheTimer = setTimeout(() => {
      this.cacheTimer = null;
      this.chain = this.chain.then(() => this.writeCache());
    }, this.options.cacheWriteDelayMs ?? CACHE_WRITE_DELAY_MS);
    this.cacheTimer.unref();
  }

  private async writeCache(): Promise<void> {
    if (!this.cache || this.closed) return;
    const ids = {} as Record<BuiltArtifact, string | null>;
    const verdicts = {} as BuiltViews['verdicts'];
    for (const name of BUILT) {
      const current = this.built[name].current;
      ids[name] = current?.etag ?? null;
      verdicts[name] = current ? { ok: true, rows: current.rows } : null;
    }
    const key = this.cacheKey(ids);
    if (key === this.cachedKey) return;
    const snap = this.snapshot;
    try {
      await this.cache.write(key, {
        verdicts,
        predictions: snap.predictions,
        cards: snap.cards,
        odds: this.built.odds.current ? snap.odds : null,
        markets: snap.markets,
      });
      this.cachedKey = key;
    } catch (err) {
      this.log.warn({ err: describe(err) }, 'serving: views cache not written');
    }
  }

  /** A build that did not finish: its files count as failed loads; one that crashes it twice is rejected. */
  private buildFailed(fetched: Record<BuiltArtifact, Fetched>, reason: string): void {
    this.rebuild = true;
    for (const name of BUILT) {
      const f = fetched[name];
      if (f.kind === 'same') continue;
      const s = this.built[name];
      artifactLoadFailuresTotal.inc({ artifact: name });
      s.lastError = `building the views failed: ${reason}`;
      if (f.kind === 'new') {
        if (s.crashedEtag === f.identity) s.rejectedEtag = f.identity;
        else s.crashedEtag = f.identity;
      }
      this.log.error(
        {
          artifact: name,
          key: f.where,
          err: reason,
          serving: s.current?.etag ?? null,
          retry: !(f.kind === 'new' && s.rejectedEtag === f.identity),
        },
        'serving: building the views failed; the previous views keep serving',
      );
    }
  }

  /** Records the outcome of a build for one artifact; true when what it serves changed. */
  private apply(artifact: BuiltArtifact, f: Fetched, verdict: Verdict, ms: number): boolean {
    if (f.kind === 'same') return false;
    const s = this.built[artifact];
    s.crashedEtag = null;
    if (f.kind === 'removed') return s.removed(f.where);
    if (!verdict?.ok) {
      s.reject(f, verdict?.error ?? 'no verdict from the view builder');
      return false;
    }
    return s.loaded(f.body, verdict.rows, f, ms);
  }

  /** Brings the ROI rows (a small CSV, parsed here) in line with the store; true when they changed. */
  private async syncRoi(): Promise<boolean> {
    const f = await this.roi.fetch(this.store, this.pointer);
    if (f.kind === 'same') return false;
    if (f.kind === 'removed') return this.roi.removed(f.where);
    try {
      const rows = parseRegionRoiCsv(f.body);
      return this.roi.loaded(rows, rows.length, f);
    } catch (err) {
      this.roi.reject(f, describe(err));
      return false;
    }
  }

  /** Re-checks the ROI CSV (single flight, at most one per interval: `roiCheckedAt` is set first). */
  private checkRoi(): Promise<void> {
    if (this.roiInflight) return this.roiInflight;
    this.roiCheckedAt = Date.now();
    this.roiInflight = (async () => {
      // The ROI moves with the pointer (pollOnce): this confirms the run's copy or retries a failed read.
      if (await this.syncRoi()) this.setRoiRows();
    })().finally(() => {
      this.roiInflight = null;
    });
    return this.roiInflight;
  }
}

/** The views over the object store; `start()` never throws (a bad file leaves its view empty or 503). */
export function createServingViews(
  backends: { db: Queryable; store: ObjectStore },
  config: Config,
  log: Logger,
  options: ServingViewsOptions = {},
): Views {
  return new Views(backends.db, backends.store, config, log, options);
}
