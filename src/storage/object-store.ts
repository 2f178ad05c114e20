import type { Bucket } from '../domain/index.js';

export interface ObjectInfo {
  key: string;
  size: number;
  /** Opaque tag that changes when the object is replaced; not for compare-and-swap nor across keys. */
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
 * Files written once (what changes lives in the database), under keys every driver validates, atomically:
 * of two puts of one key the last stays. An unreachable store: MC_ERR_STORE_UNAVAILABLE within a timeout.
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
