import { setTimeout as sleep } from 'node:timers/promises';
import type { S3Client } from '@aws-sdk/client-s3';
import { BUCKETS, type Bucket, isMatchcastError, MatchcastError } from '../domain/index.js';
import type { Logger } from '../logger.js';
import { contentTypeForKey } from './content-type.js';
import { compareKeys, isReservedKey, validateBucket, validateKey, validatePrefix } from './keys.js';
import type { ObjectInfo, ObjectStore, PutOptions, StoredObject } from './object-store.js';

interface S3ObjectStoreOptions {
  endpoint: string;
  region?: string;
  /** With `secretAccessKey`; without both, the SDK's credential chain. */
  accessKeyId?: string;
  secretAccessKey?: string;
  bucketPrefix?: string;
  forcePathStyle?: boolean;
  /** Socket inactivity timeout of one HTTP request, ms. Default `5000`. */
  requestTimeoutMs?: number;
  /** Hard bound on one store call including retries, ms. Default `30000`. */
  operationTimeoutMs?: number;
  /** Attempts per call, the SDK's own retry with back-off (1 = no retry). Default `2`. */
  maxAttempts?: number;
  log?: Logger;
}

function stripQuotes(etag: string | undefined): string {
  return (etag ?? '').replace(/^W\//, '').replace(/^"|"$/g, '');
}

function infoOf(
  key: string,
  size: number | undefined,
  o: { ETag?: string; LastModified?: Date },
): ObjectInfo {
  return { key, size: size ?? 0, etag: stripQuotes(o.ETag), lastModified: o.LastModified ?? new Date(0) };
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

/** A `catch` answering `fallback` when a store call failed on a bucket never created (nothing in it). */
function ifNoBucket<T>(fallback: T): (err: unknown) => T {
  return (err) => {
    if (isMatchcastError(err) && isNoSuchBucket(err.cause)) return fallback;
    throw err;
  };
}

interface Sdk {
  lib: typeof import('@aws-sdk/client-s3');
  client: S3Client;
  getSignedUrl: typeof import('@aws-sdk/s3-request-presigner').getSignedUrl;
}

/**
 * The S3 driver, for any S3-compatible server; bucket names are `S3_BUCKET_PREFIX` + the logical bucket.
 * Every call is bounded (timeouts, few attempts, an abort signal). One PUT per object, atomic and resendable.
 */
export class S3ObjectStore implements ObjectStore {
  readonly kind = 's3' as const;
  private readonly ensured = new Set<string>();
  private sdk?: Promise<Sdk>;

  constructor(private readonly options: S3ObjectStoreOptions) {}

  /** The SDK and its client, loaded on first use: a process on the folder store never pays for them. */
  private loadSdk(): Promise<Sdk> {
    this.sdk ??= (async () => {
      const [lib, { getSignedUrl }] = await Promise.all([
        import('@aws-sdk/client-s3'),
        import('@aws-sdk/s3-request-presigner'),
      ]);
      const { options } = this;
      const credentials =
        options.accessKeyId && options.secretAccessKey
          ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey }
          : undefined;
      const client = new lib.S3Client({
        endpoint: options.endpoint,
        region: options.region ?? 'us-east-1',
        credentials,
        forcePathStyle: options.forcePathStyle ?? true,
        // Without these the SDK sends aws-chunked bodies that some S3-compatible servers store verbatim.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
        maxAttempts: options.maxAttempts ?? 2,
        requestHandler: {
          connectionTimeout: 1000,
          requestTimeout: options.requestTimeoutMs ?? 5_000,
          // Without this the SDK only logs a warning and keeps waiting on a silent socket.
          throwOnRequestTimeout: true,
        },
      });
      return { lib, client, getSignedUrl };
    })();
    return this.sdk;
  }

  async client(): Promise<S3Client> {
    return (await this.loadSdk()).client;
  }

  /** The physical bucket name of a logical bucket. */
  bucketName(bucket: Bucket): string {
    return (this.options.bucketPrefix ?? '') + validateBucket(bucket);
  }

  /** The SDK's address of an object, its key validated. */
  private address(bucket: Bucket, key: string): { Bucket: string; Key: string } {
    return { Key: validateKey(key), Bucket: this.bucketName(bucket) };
  }

  /** Runs one SDK call under the overall timeout and maps its failure to a MatchcastError. */
  private async call<T>(what: string, fn: (signal: AbortSignal, sdk: Sdk) => Promise<T>): Promise<T> {
    const signal = AbortSignal.timeout(this.options.operationTimeoutMs ?? 30_000);
    try {
      return await fn(signal, await this.loadSdk());
    } catch (err) {
      if (isMatchcastError(err)) throw err;
      const status = statusOf(err);
      const detail = `Object store (S3) ${what} failed: ${nameOf(err)}${status ? ` (HTTP ${status})` : ''}`;
      if (!isNoSuchBucket(err)) this.options.log?.warn({ err, op: what }, 'object store call failed');
      throw new MatchcastError('MC_ERR_STORE_UNAVAILABLE', detail, { cause: err });
    }
  }

  async ensureBuckets(): Promise<void> {
    for (const b of BUCKETS) await this.ensureBucket(b);
  }

  private async ensureBucket(bucket: Bucket): Promise<void> {
    const name = this.bucketName(bucket);
    if (this.ensured.has(name)) return;
    await this.call(`create bucket ${name}`, async (abortSignal, { lib, client }) => {
      try {
        await client.send(new lib.HeadBucketCommand({ Bucket: name }), { abortSignal });
        return;
      } catch (err) {
        if (!(statusOf(err) === 404 || nameOf(err) === 'NotFound' || isNoSuchBucket(err))) throw err;
      }
      try {
        await client.send(new lib.CreateBucketCommand({ Bucket: name }), { abortSignal });
      } catch (err) {
        const n = nameOf(err);
        if (n !== 'BucketAlreadyOwnedByYou' && n !== 'BucketAlreadyExists') throw err;
      }
    });
    this.ensured.add(name);
  }

  async put(
    bucket: Bucket,
    key: string,
    body: Buffer | string,
    options: PutOptions = {},
  ): Promise<ObjectInfo> {
    const data = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    const input = {
      ...this.address(bucket, key),
      Body: data,
      ContentLength: data.length,
      ContentType: options.contentType ?? contentTypeForKey(key),
    };
    const send = () =>
      this.call('put', (abortSignal, { lib, client }) =>
        client.send(new lib.PutObjectCommand(input), { abortSignal }),
      );
    // A bucket that does not exist yet is created, then the object sent once more.
    const res = await send().catch(async (err: { cause?: unknown }) => {
      if (!isNoSuchBucket(err.cause ?? err)) throw err;
      this.ensured.delete(this.bucketName(bucket));
      await this.ensureBucket(bucket);
      return send();
    });
    return { key, size: data.length, etag: stripQuotes(res.ETag), lastModified: new Date() };
  }

  async get(bucket: Bucket, key: string): Promise<StoredObject | null> {
    const address = this.address(bucket, key);
    return this.call('get', async (abortSignal, sdk) => {
      // The SDK retries a request, not a body that breaks off mid-stream (a connection reset): read again.
      for (let attempt = 1; ; attempt++) {
        try {
          return await this.getOnce(sdk, address, abortSignal);
        } catch (err) {
          const n = nameOf(err);
          const broken = n === 'ECONNRESET' || n === 'EPIPE' || /aborted|premature close/i.test(String(err));
          if (!broken || attempt >= 3 || abortSignal.aborted) throw err;
          await sleep(20 * attempt);
        }
      }
    }).catch(ifNoBucket(null));
  }

  private async getOnce(
    { lib, client }: Sdk,
    address: { Bucket: string; Key: string },
    abortSignal: AbortSignal,
  ): Promise<StoredObject | null> {
    try {
      const res = await client.send(new lib.GetObjectCommand(address), { abortSignal });
      const bytes = (await res.Body?.transformToByteArray()) ?? new Uint8Array();
      const body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      return { ...infoOf(address.Key, body.length, res), body, contentType: res.ContentType };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async head(bucket: Bucket, key: string): Promise<ObjectInfo | null> {
    const address = this.address(bucket, key);
    return this.call('head', async (abortSignal, { lib, client }) => {
      try {
        const res = await client.send(new lib.HeadObjectCommand(address), { abortSignal });
        return infoOf(key, res.ContentLength, res);
      } catch (err) {
        // HEAD has no body, so a missing bucket also arrives as a bare 404.
        if (isNotFound(err)) return null;
        throw err;
      }
    });
  }

  async list(bucket: Bucket, prefix = ''): Promise<ObjectInfo[]> {
    validatePrefix(prefix);
    const input = { Bucket: this.bucketName(bucket), Prefix: prefix || undefined };
    return this.call('list', async (abortSignal, { lib, client }) => {
      const out: ObjectInfo[] = [];
      for await (const page of lib.paginateListObjectsV2({ client }, input, { abortSignal })) {
        for (const o of page.Contents ?? []) {
          // Reserved keys: objects earlier versions kept for their own bookkeeping (a probe object).
          if (o.Key && !isReservedKey(o.Key)) out.push(infoOf(o.Key, o.Size, o));
        }
      }
      return out.sort((a, b) => compareKeys(a.key, b.key));
    }).catch(ifNoBucket([]));
  }

  async delete(bucket: Bucket, key: string): Promise<void> {
    const address = this.address(bucket, key);
    await this.call('delete', async (abortSignal, { lib, client }) => {
      try {
        await client.send(new lib.DeleteObjectCommand(address), { abortSignal });
      } catch (err) {
        if (isNotFound(err) || isNoSuchBucket(err)) return;
        throw err;
      }
    });
  }

  async presign(bucket: Bucket, key: string, ttlSeconds: number): Promise<string> {
    const address = this.address(bucket, key);
    return this.call('presign', (_signal, { lib, client, getSignedUrl }) =>
      getSignedUrl(client, new lib.GetObjectCommand(address), {
        expiresIn: Math.max(1, Math.ceil(ttlSeconds)),
      }),
    );
  }

  async close(): Promise<void> {
    if (this.sdk) (await this.sdk.catch(() => null))?.client.destroy();
  }
}
