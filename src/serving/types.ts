import type { PublishedRun } from '../runs/index.js';

/** A JSON body serialised once per load, with its compressed variants and validators. */
export interface EncodedBody {
  /** UTF-8 JSON, or null above `identityMaxBytes`: identity responses then stream from `gzip`. */
  identity: Buffer | null;
  /** Byte length of the identity body. */
  size: number;
  gzip: Buffer;
  br: Buffer;
  /** Strong ETag of each representation (they differ only by a suffix: one content, three codings). */
  etags: { identity: string; gzip: string; br: string };
}

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
