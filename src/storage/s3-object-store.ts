import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { BUCKETS, type Bucket, isMatchcastError, MatchcastError } from '../domain/index.js';
import type { Logger } from '../logger.js';
import { contentTypeForKey } from './content-type.js';
import { compareKeys, isReservedKey, RESERVED_SEGMENT_PREFIX, validateKey, validatePrefix } from './keys.js';
import type { ObjectInfo, ObjectStore, PutOptions, StoredObject } from './object-store.js';

/** Options of {@link S3ObjectStore}. */
export interface S3ObjectStoreOptions {
  /** Endpoint URL (`S3_ENDPOINT`). */
  endpoint: string;
  /** Region (`S3_REGION`). Default `us-east-1`. */
  region?: string;
  /** Access key id; default the SDK's credential chain. */
  accessKeyId?: string;
  /** Secret access key; default the SDK's credential chain. */
  secretAccessKey?: string;
  /** Prepended to every bucket name (`S3_BUCKET_PREFIX`). Default empty. */
  bucketPrefix?: string;
  /** Path-style addressing (`S3_FORCE_PATH_STYLE`). Default `true`. */
  forcePathStyle?: boolean;
  /** TCP connect timeout, ms. Default `1000`. */
  connectTimeoutMs?: number;
  /** Socket inactivity timeout of one HTTP request, ms. Default `5000`. */
  requestTimeoutMs?: number;
  /** Hard bound on one store call including retries, ms. Default `30000`. */
  operationTimeoutMs?: number;
  /** Attempts per call (1 = no retry). Default `2`. */
  maxAttempts?: number;
  /**
   * How `ifMatch`/`ifNoneMatch` are enforced: `native` sends the S3 conditional headers only (AWS S3,
   * MinIO); `emulated` adds a per-key lock (in-process mutex plus a lock object) and a head-compare
   * right before the put, for servers that ignore the headers (s3rver); `auto` probes the server once.
   * Default `auto`.
   */
  conditionalWrites?: 'auto' | 'native' | 'emulated';
  /** Wait after writing a lock object before checking it is still ours (emulated mode), ms. Default `50`. */
  lockSettleMs?: number;
  /** A lock object older than this is ignored (emulated mode), ms. Default `30000`. */
  lockStaleMs?: number;
  /** Longest wait for a lock object (emulated mode) before MC_ERR_CONFLICT, ms. Default `10000`. */
  lockTimeoutMs?: number;
  log?: Logger;
}

const LOCK_PREFIX = `${RESERVED_SEGMENT_PREFIX}locks/`;

function stripQuotes(etag: string | undefined): string {
  return (etag ?? '').replace(/^W\//, '').replace(/^"|"$/g, '');
}

interface SdkError {
  name?: string;
  code?: string;
  $metadata?: { httpStatusCode?: number };
}

function statusOf(err: unknown): number | undefined {
  return (err as SdkError | undefined)?.$metadata?.httpStatusCode;
}

function nameOf(err: unknown): string {
  const e = err as SdkError | undefined;
  // Network failures are plain Errors whose errno code (ECONNREFUSED, …) is the useful part.
  if (e?.name && e.name !== 'Error') return e.name;
  return e?.code ?? e?.name ?? 'Error';
}

function isNotFound(err: unknown): boolean {
  const name = nameOf(err);
  return name === 'NoSuchKey' || name === 'NotFound' || (statusOf(err) === 404 && name !== 'NoSuchBucket');
}

function isNoSuchBucket(err: unknown): boolean {
  return nameOf(err) === 'NoSuchBucket';
}

function isPreconditionFailed(err: unknown): boolean {
  const name = nameOf(err);
  return name === 'PreconditionFailed' || name === 'ConditionalRequestConflict' || statusOf(err) === 412;
}

/**
 * The S3 driver of the object store (`@aws-sdk/client-s3`). Bucket names are `S3_BUCKET_PREFIX` +
 * the logical bucket. Every call is bounded (connect timeout, request timeout, few attempts and an
 * overall abort signal), so an unreachable store fails with MC_ERR_STORE_UNAVAILABLE instead of
 * hanging. A single PUT is atomic on S3 itself.
 */
export class S3ObjectStore implements ObjectStore {
  readonly kind = 's3' as const;
  readonly client: S3Client;
  private readonly options: S3ObjectStoreOptions;
  private readonly prefix: string;
  private conditionalMode: Promise<'native' | 'emulated'> | undefined;
  private readonly keyQueues = new Map<string, Promise<void>>();
  private readonly ensured = new Set<string>();
  private emulated = false;

  constructor(options: S3ObjectStoreOptions) {
    this.options = options;
    this.prefix = options.bucketPrefix ?? '';
    const credentials =
      options.accessKeyId && options.secretAccessKey
        ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey }
        : undefined;
    this.client = new S3Client({
      endpoint: options.endpoint,
      region: options.region ?? 'us-east-1',
      credentials,
      forcePathStyle: options.forcePathStyle ?? true,
      // Without these the SDK sends aws-chunked bodies that some S3-compatible servers store verbatim.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: options.maxAttempts ?? 2,
      requestHandler: {
        connectionTimeout: options.connectTimeoutMs ?? 1000,
        requestTimeout: options.requestTimeoutMs ?? 5_000,
        // Without this the SDK only logs a warning and keeps waiting on a silent socket.
        throwOnRequestTimeout: true,
      },
    });
    if (options.conditionalWrites && options.conditionalWrites !== 'auto') {
      this.conditionalMode = Promise.resolve(options.conditionalWrites);
      this.emulated = options.conditionalWrites === 'emulated';
    }
  }

  /** The physical bucket name of a logical bucket. */
  bucketName(bucket: Bucket): string {
    if (!(BUCKETS as readonly string[]).includes(bucket)) {
      throw new MatchcastError('MC_ERR_INVALID_KEY', `Unknown bucket ${JSON.stringify(bucket)}`);
    }
    return this.prefix + bucket;
  }

  /** Runs one SDK call under the overall timeout and maps its failure to a MatchcastError. */
  private async call<T>(what: string, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const signal = AbortSignal.timeout(this.options.operationTimeoutMs ?? 30_000);
    try {
      return await fn(signal);
    } catch (err) {
      throw this.mapError(what, err);
    }
  }

  private mapError(what: string, err: unknown): Error {
    if (isMatchcastError(err)) return err;
    if (isPreconditionFailed(err))
      return new MatchcastError('MC_ERR_CONFLICT', `S3 ${what}: precondition failed`);
    const status = statusOf(err);
    const detail = `Object store (S3) ${what} failed: ${nameOf(err)}${status ? ` (HTTP ${status})` : ''}`;
    if (!isNoSuchBucket(err)) this.options.log?.warn({ err, op: what }, 'object store call failed');
    return new MatchcastError('MC_ERR_STORE_UNAVAILABLE', detail, { cause: err });
  }

  /** Creates the five buckets when they are missing. */
  async ensureBuckets(): Promise<void> {
    for (const b of BUCKETS) await this.ensureBucket(b);
  }

  private async ensureBucket(bucket: Bucket): Promise<void> {
    const name = this.bucketName(bucket);
    if (this.ensured.has(name)) return;
    await this.call(`create bucket ${name}`, async (abortSignal) => {
      try {
        await this.client.send(new HeadBucketCommand({ Bucket: name }), { abortSignal });
        return;
      } catch (err) {
        if (!(statusOf(err) === 404 || nameOf(err) === 'NotFound' || isNoSuchBucket(err))) throw err;
      }
      try {
        await this.client.send(new CreateBucketCommand({ Bucket: name }), { abortSignal });
      } catch (err) {
        const n = nameOf(err);
        if (n !== 'BucketAlreadyOwnedByYou' && n !== 'BucketAlreadyExists') throw err;
      }
    });
    this.ensured.add(name);
  }

  /** Runs `fn`, creating the bucket and retrying once if it does not exist yet. */
  private async withBucket<T>(bucket: Bucket, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (!isNoSuchBucket((err as { cause?: unknown }).cause ?? err)) throw err;
      this.ensured.delete(this.bucketName(bucket));
      await this.ensureBucket(bucket);
      return fn();
    }
  }

  private async rawPut(
    bucket: Bucket,
    key: string,
    data: Buffer,
    options: PutOptions,
    conditionalHeaders: boolean,
  ): Promise<ObjectInfo> {
    const res = await this.call('put', (abortSignal) =>
      this.client.send(
        new PutObjectCommand({
          Bucket: this.bucketName(bucket),
          Key: key,
          Body: data,
          ContentLength: data.length,
          ContentType: options.contentType ?? contentTypeForKey(key),
          IfNoneMatch: conditionalHeaders ? options.ifNoneMatch : undefined,
          IfMatch: conditionalHeaders && options.ifMatch !== undefined ? `"${options.ifMatch}"` : undefined,
        }),
        { abortSignal },
      ),
    );
    return { key, size: data.length, etag: stripQuotes(res.ETag), lastModified: new Date() };
  }

  async put(
    bucket: Bucket,
    key: string,
    body: Buffer | string,
    options: PutOptions = {},
  ): Promise<ObjectInfo> {
    validateKey(key);
    this.bucketName(bucket);
    const data = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    return this.withBucket(bucket, async () => {
      const conditional = options.ifNoneMatch === '*' || options.ifMatch !== undefined;
      const mode = conditional ? await this.detectConditionalMode(bucket) : 'native';
      if (mode === 'native') {
        // Against a server without conditional writes, plain puts still queue behind this
        // process's emulated conditional puts of the same key so those cannot lose them.
        if (this.emulated)
          return this.serialised(bucket, key, () => this.rawPut(bucket, key, data, options, true));
        return this.rawPut(bucket, key, data, options, true);
      }
      return this.serialised(bucket, key, async () => {
        const unlock = await this.lockObject(bucket, key);
        try {
          const cur = await this.head(bucket, key);
          if (options.ifNoneMatch === '*' && cur) {
            throw new MatchcastError('MC_ERR_CONFLICT', `${bucket}/${key} already exists`);
          }
          if (options.ifMatch !== undefined && cur?.etag !== options.ifMatch) {
            throw new MatchcastError('MC_ERR_CONFLICT', `${bucket}/${key} changed (etag mismatch)`);
          }
          return await this.rawPut(bucket, key, data, options, true);
        } finally {
          await unlock();
        }
      });
    });
  }

  /** Chains calls on one key inside this process. */
  private async serialised<T>(bucket: Bucket, key: string, fn: () => Promise<T>): Promise<T> {
    const id = `${bucket}/${key}`;
    const prev = this.keyQueues.get(id) ?? Promise.resolve();
    let done!: () => void;
    const mine = new Promise<void>((r) => {
      done = r;
    });
    const tail = prev.then(() => mine);
    this.keyQueues.set(id, tail);
    await prev;
    try {
      return await fn();
    } finally {
      done();
      if (this.keyQueues.get(id) === tail) this.keyQueues.delete(id);
    }
  }

  /**
   * A lock object between processes for servers without conditional writes (Fischer's protocol):
   * wait until no fresh lock exists (absent, empty or stale), write our nonce, wait `lockSettleMs`,
   * and go ahead only if the nonce read back is still ours. Safe as long as a lock PUT lands within
   * `lockSettleMs`.
   */
  private async lockObject(bucket: Bucket, key: string): Promise<() => Promise<void>> {
    const lockKey = LOCK_PREFIX + key;
    const nonce = randomBytes(12).toString('hex');
    const settle = this.options.lockSettleMs ?? 50;
    const stale = this.options.lockStaleMs ?? 30_000;
    const deadline = Date.now() + (this.options.lockTimeoutMs ?? 10_000);
    for (;;) {
      const held = await this.getRaw(bucket, lockKey);
      if (!held || held.size === 0 || Date.now() - held.lastModified.getTime() > stale) {
        await this.rawPut(bucket, lockKey, Buffer.from(nonce), { contentType: 'text/plain' }, false);
        await sleep(settle);
        const back = await this.getRaw(bucket, lockKey);
        if (back?.body.toString() === nonce) {
          return async () => {
            const now = await this.getRaw(bucket, lockKey).catch(() => null);
            // Released by emptying, not deleting: s3rver crashes when a delete prunes the folder
            // while another request writes into it.
            if (now?.body.toString() === nonce) {
              await this.rawPut(bucket, lockKey, Buffer.alloc(0), { contentType: 'text/plain' }, false).catch(
                () => undefined,
              );
            }
          };
        }
      }
      if (Date.now() > deadline) {
        throw new MatchcastError(
          'MC_ERR_CONFLICT',
          'Timed out waiting for a concurrent writer of the same object',
        );
      }
      await sleep(settle / 2 + Math.random() * settle);
    }
  }

  /** Does the server reject a create-exclusive PUT on an existing key? Probed once per store. */
  private detectConditionalMode(bucket: Bucket): Promise<'native' | 'emulated'> {
    this.conditionalMode ??= (async () => {
      const probe = `${RESERVED_SEGMENT_PREFIX}probe/${randomBytes(8).toString('hex')}`;
      await this.rawPut(bucket, probe, Buffer.from('1'), {}, false);
      try {
        await this.rawPut(bucket, probe, Buffer.from('2'), { ifNoneMatch: '*' }, true);
        this.options.log?.info('S3 server ignores conditional writes; emulating them with lock objects');
        this.emulated = true;
        return 'emulated' as const;
      } catch (err) {
        if (isMatchcastError(err, 'MC_ERR_CONFLICT')) return 'native' as const;
        throw err;
      } finally {
        await this.deleteRaw(bucket, probe).catch(() => undefined);
      }
    })().catch((err: unknown) => {
      this.conditionalMode = undefined;
      throw err;
    });
    return this.conditionalMode;
  }

  /** The mode conditional writes use against this server (probes when `auto`). */
  conditionalWriteMode(bucket: Bucket = 'models'): Promise<'native' | 'emulated'> {
    return this.withBucket(bucket, () => this.detectConditionalMode(bucket));
  }

  private async getRaw(bucket: Bucket, key: string): Promise<StoredObject | null> {
    return this.call('get', async (abortSignal) => {
      // The SDK retries the request but not a body that breaks off mid-stream (connection reset,
      // or a server that rewrites the object in place as s3rver does): read again a few times.
      for (let attempt = 1; ; attempt++) {
        try {
          return await this.getOnce(bucket, key, abortSignal);
        } catch (err) {
          const n = nameOf(err);
          const broken = n === 'ECONNRESET' || n === 'EPIPE' || /aborted|premature close/i.test(String(err));
          if (!broken || attempt >= 3 || abortSignal.aborted) throw err;
          await sleep(20 * attempt);
        }
      }
    });
  }

  private async getOnce(bucket: Bucket, key: string, abortSignal: AbortSignal): Promise<StoredObject | null> {
    try {
      const res = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucketName(bucket), Key: key }),
        {
          abortSignal,
        },
      );
      const bytes = (await res.Body?.transformToByteArray()) ?? new Uint8Array();
      const body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      return {
        key,
        size: body.length,
        etag: stripQuotes(res.ETag),
        lastModified: res.LastModified ?? new Date(0),
        body,
        contentType: res.ContentType,
      };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  private async headRaw(bucket: Bucket, key: string): Promise<ObjectInfo | null> {
    return this.call('head', async (abortSignal) => {
      try {
        const res = await this.client.send(
          new HeadObjectCommand({ Bucket: this.bucketName(bucket), Key: key }),
          {
            abortSignal,
          },
        );
        return {
          key,
          size: res.ContentLength ?? 0,
          etag: stripQuotes(res.ETag),
          lastModified: res.LastModified ?? new Date(0),
        };
      } catch (err) {
        // HEAD has no body, so a missing bucket also arrives as a bare 404.
        if (isNotFound(err)) return null;
        throw err;
      }
    });
  }

  private async deleteRaw(bucket: Bucket, key: string): Promise<void> {
    await this.call('delete', async (abortSignal) => {
      try {
        await this.client.send(new DeleteObjectCommand({ Bucket: this.bucketName(bucket), Key: key }), {
          abortSignal,
        });
      } catch (err) {
        if (isNotFound(err) || isNoSuchBucket(err)) return;
        throw err;
      }
    });
  }

  async get(bucket: Bucket, key: string): Promise<StoredObject | null> {
    validateKey(key);
    try {
      return await this.getRaw(bucket, key);
    } catch (err) {
      if (isMatchcastError(err) && isNoSuchBucket(err.cause)) return null;
      throw err;
    }
  }

  async head(bucket: Bucket, key: string): Promise<ObjectInfo | null> {
    validateKey(key);
    return this.headRaw(bucket, key);
  }

  async list(bucket: Bucket, prefix = ''): Promise<ObjectInfo[]> {
    validatePrefix(prefix);
    const name = this.bucketName(bucket);
    const out: ObjectInfo[] = [];
    let token: string | undefined;
    try {
      do {
        const res = await this.call('list', (abortSignal) =>
          this.client.send(
            new ListObjectsV2Command({ Bucket: name, Prefix: prefix || undefined, ContinuationToken: token }),
            { abortSignal },
          ),
        );
        for (const o of res.Contents ?? []) {
          if (!o.Key || isReservedKey(o.Key)) continue;
          out.push({
            key: o.Key,
            size: o.Size ?? 0,
            etag: stripQuotes(o.ETag),
            lastModified: o.LastModified ?? new Date(0),
          });
        }
        token = res.IsTruncated ? res.NextContinuationToken : undefined;
      } while (token);
    } catch (err) {
      if (isMatchcastError(err) && isNoSuchBucket(err.cause)) return [];
      throw err;
    }
    return out.sort((a, b) => compareKeys(a.key, b.key));
  }

  async delete(bucket: Bucket, key: string): Promise<void> {
    validateKey(key);
    await this.deleteRaw(bucket, key);
  }

  async presign(bucket: Bucket, key: string, ttlSeconds: number): Promise<string> {
    validateKey(key);
    const Bucket = this.bucketName(bucket);
    return this.call('presign', () =>
      getSignedUrl(this.client, new GetObjectCommand({ Bucket, Key: key }), {
        expiresIn: Math.max(1, Math.ceil(ttlSeconds)),
      }),
    );
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}
