import type { Bucket } from '../domain/index.js';

/** Metadata of a stored object. */
export interface ObjectInfo {
  key: string;
  size: number;
  /**
   * Opaque change tag: it changes when the object is replaced, so a reader may skip re-reading an
   * object whose tag it has seen. Not a version to compare-and-swap on, nor comparable across keys.
   */
  etag: string;
  lastModified: Date;
}

export interface StoredObject extends ObjectInfo {
  body: Buffer;
  contentType: string | undefined;
}

export interface PutOptions {
  /** Stored by S3; the folder store answers the type the key's extension implies. */
  contentType?: string;
}

/**
 * The object store port (ARCHITECTURE §3): files written once under unique keys (run artifacts,
 * reports, models); metadata that changes lives in the database. Keys are validated by every driver:
 * no `..` segment, no absolute path, no backslash, no NUL; an invalid key throws MC_ERR_INVALID_KEY.
 * Writes are atomic: a reader sees no object (or the old one) or the new one, never a partial one.
 * There are no conditional writes: two puts of one key both succeed and the last one stays. A store
 * that cannot be reached throws MC_ERR_STORE_UNAVAILABLE (bounded by a timeout), never hangs.
 */
export interface ObjectStore {
  readonly kind: 'fs' | 's3';
  put(bucket: Bucket, key: string, body: Buffer | string, options?: PutOptions): Promise<ObjectInfo>;
  /** Null when the object does not exist. */
  get(bucket: Bucket, key: string): Promise<StoredObject | null>;
  /** Null when the object does not exist. */
  head(bucket: Bucket, key: string): Promise<ObjectInfo | null>;
  /** Objects whose key starts with `prefix`, sorted by key. */
  list(bucket: Bucket, prefix?: string): Promise<ObjectInfo[]>;
  /** Deleting an absent object is not an error. */
  delete(bucket: Bucket, key: string): Promise<void>;
  /** A URL that lets a browser GET the object for `ttlSeconds` without credentials. */
  presign(bucket: Bucket, key: string, ttlSeconds: number): Promise<string>;
  /** Creates the buckets of `BUCKETS` when missing. Optional: drivers also create a bucket on first write. */
  ensureBuckets?(): Promise<void>;
  close(): Promise<void>;
}
