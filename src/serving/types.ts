import type { PublishedRun } from '../runs/index.js';
import type { OddsRecord, RegionRoi } from '../schemas/index.js';

/** A JSON body serialised once per load, with its compressed variants and validators. */
export interface EncodedBody {
  /**
   * UTF-8 JSON, or null for a body larger than the identity threshold (`identityMaxBytes`): then
   * only the compressed copies are held and an identity response is decompressed from `gzip` as it
   * streams (see `identityOf`/`identityStream`). Browsers and `curl --compressed` never need it.
   */
  identity: Buffer | null;
  /** Byte length of the identity body. */
  size: number;
  gzip: Buffer;
  br: Buffer;
  /** Strong ETag of each representation (they differ only by a suffix: one content, three codings). */
  etags: { identity: string; gzip: string; br: string };
}

/** Spec §2.5 plus the opening/closing/goals-market columns of `raw-data/odds.parquet`. */
export type OddsRow = OddsRecord;

/** The published run the views serve. */
export type ServedRun = Pick<PublishedRun, 'run_id' | 'features_fingerprint' | 'published_at'>;

/** Where a view currently stands; what `/healthcheck/`-style diagnostics may show. */
export interface ViewStatus {
  /** `loaded`: serving a validated copy; `missing`: the object does not exist; `pending`: never loaded yet. */
  state: 'loaded' | 'missing' | 'pending';
  /** Store ETag of the copy being served, null unless loaded. */
  etag: string | null;
  /** Rows in the served copy. */
  rows: number;
  loadedAt: Date | null;
  /** Last load or poll failure (kept while the previous copy serves), null after a success. */
  lastError: string | null;
}

/**
 * The precomputed views the routes read (`createServingViews` returns one). Every accessor is a
 * memory read: no object-store call happens at request time, except the bounded ROI re-check.
 */
export interface Views {
  /** Loads every view once, then polls the store for changes. */
  start(): Promise<void>;
  close(): Promise<void>;
  /** Bulk body of spec §2.1. Throws MatchcastError MC_ERR_PREDICTIONS_UNAVAILABLE when no predictions are loaded. */
  predictionsBody(): EncodedBody;
  /**
   * Pre-serialised spec §2.2 JSON of one match; `undefined` when the match is not in the file.
   * Throws MC_ERR_PREDICTIONS_UNAVAILABLE when no predictions are loaded.
   */
  precomputedJson(matchId: number): Buffer | undefined;
  /** Match cards (fields in docs/serving-precomputed.md). Throws MC_ERR_PREDICTIONS_UNAVAILABLE when no predictions are loaded. */
  cardsBody(): EncodedBody;
  /** Spec §2.5 records; `[]` when the odds file does not exist. */
  oddsBody(): EncodedBody;
  /** Spec §2.6 records, re-checked against the store at most every `config.roiRecheckMs`; `[]` when absent. */
  regionRoi(): Promise<readonly RegionRoi[]>;
  /** Polls the store now (predictions and odds) and waits for any reload; for tests and admin tooling. */
  refresh(): Promise<void>;
  /**
   * Pre-serialised goals markets of one match (`GET /predict/markets/{id}`, matrix left out), from the
   * same published run as the cards; `undefined` when the markets file has no row for it.
   */
  marketsJson(matchId: number): Buffer | undefined;
  status(): { predictions: ViewStatus; odds: ViewStatus; regionRoi: ViewStatus; markets: ViewStatus };
  /**
   * The published run the views serve (run id, features fingerprint, publication time); null while
   * no run was ever published (legacy top-level keys). Live answers are cached per served run.
   */
  servedRun(): ServedRun | null;
}
