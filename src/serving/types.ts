import type { PublishedRun } from '../runs/index.js';

/** A JSON body serialised once per load, with its compressed variants and validators. */
export interface EncodedBody {
  /** UTF-8 JSON, or null above `identityMaxBytes`: identity responses then stream from `gzip`. */
  identity: Buffer | null;
  size: number;
  gzip: Buffer;
  br: Buffer;
  /** Strong ETags differing only by a suffix: one content, three codings. */
  etags: { identity: string; gzip: string; br: string };
}

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
