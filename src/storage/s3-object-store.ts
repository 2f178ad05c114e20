import { createHash } from 'node:crypto';
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
import {
  CREATED,
  historyOf,
  newWriteId,
  outcomeOf,
  parseHistory,
  UNKNOWN,
  WRITE_HISTORY_META,
} from './write-history.js';

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
   * Probe the server for conditional writes (`If-None-Match: *`, `If-Match`) before the first one and
   * at `ensureBuckets`, failing with MC_ERR_STORE_UNSUPPORTED when it ignores them. `false` skips the
   * probe (a server known to have them: AWS S3, MinIO, R2). Default `true`.
   */
  checkConditionalWrites?: boolean;
  log?: Logger;
}

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

/** 4xx answers the SDK would retry: the server did not act on them, and a resend may succeed. */
const TRANSIENT_REFUSALS = new Set([
  'RequestTimeout',
  'RequestTimeTooSkewed',
  'SlowDown',
  'Throttling',
  'ThrottlingException',
  'TooManyRequestsException',
]);

/** Statuses the SDK retries: the server may have acted on the request, or may on a resend. */
const RESEND_STATUSES = new Set([429, 500, 502, 503, 504]);

/** Failures before the request reached the server: nothing can have landed. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * A failure after which the write may have landed or a resend may succeed: no answer (reset,
 * timeout), a server error, or a refusal the SDK would retry.
 */
function mayResend(err: unknown): boolean {
  const status = statusOf(err);
  if (status === undefined) {
    const name = nameOf(err);
    if (NOT_SENT.has(name) || name === 'CredentialsProviderError') return false;
    return !/did not establish a connection/.test(String((err as Error | undefined)?.message));
  }
  return RESEND_STATUSES.has(status) || TRANSIENT_REFUSALS.has(nameOf(err));
}

function conflict(key: string): MatchcastError {
  return new MatchcastError('MC_ERR_CONFLICT', `S3 conditional put of ${key}: precondition failed`);
}

/** Histories of recently read or written objects kept per store, to name a write's base. */
const KNOWN_HISTORIES = 4096;

function isPreconditionFailed(err: unknown): boolean {
  const name = nameOf(err);
  return name === 'PreconditionFailed' || name === 'ConditionalRequestConflict' || statusOf(err) === 412;
}

/**
 * The S3 driver of the object store (`@aws-sdk/client-s3`). Bucket names are `S3_BUCKET_PREFIX` +
 * the logical bucket. Every call is bounded (connect timeout, request timeout, few attempts and an
 * overall abort signal), so an unreachable store fails with MC_ERR_STORE_UNAVAILABLE instead of
 * hanging. A single PUT is atomic on S3 itself. Compare-and-swap and create-exclusive rely on the
 * server's conditional writes (AWS S3, MinIO, R2 have them); a server without them is refused with
 * MC_ERR_STORE_UNSUPPORTED (see `checkConditionalWrites`).
 */
export class S3ObjectStore implements ObjectStore {
  readonly kind = 's3' as const;
  readonly client: S3Client;
  /** Conditional writes are never resent blindly by the SDK: see `conditionalPut`. */
  private readonly conditionalClient: S3Client;
  /** `bucket/key` → the etag and write history last seen of it (insertion order = age). */
  private readonly histories = new Map<string, { etag: string; history: string[] }>();
  private readonly options: S3ObjectStoreOptions;
  private readonly prefix: string;
  private conditionalCheck: Promise<void> | undefined;
  private readonly ensured = new Set<string>();

  constructor(options: S3ObjectStoreOptions) {
    this.options = options;
    this.prefix = options.bucketPrefix ?? '';
    const credentials =
      options.accessKeyId && options.secretAccessKey
        ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey }
        : undefined;
    const config = {
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
    } as const;
    this.client = new S3Client(config);
    this.conditionalClient = new S3Client({ ...config, maxAttempts: 1 });
    if (options.checkConditionalWrites === false) this.conditionalCheck = Promise.resolve();
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
    // S3 answers If-Match on a missing key with 404 NoSuchKey: the compare failed all the same.
    if (isPreconditionFailed(err) || (what === 'conditional put' && isNotFound(err)))
      return new MatchcastError('MC_ERR_CONFLICT', `S3 ${what}: precondition failed`, { cause: err });
    const status = statusOf(err);
    const detail = `Object store (S3) ${what} failed: ${nameOf(err)}${status ? ` (HTTP ${status})` : ''}`;
    if (!isNoSuchBucket(err)) this.options.log?.warn({ err, op: what }, 'object store call failed');
    return new MatchcastError('MC_ERR_STORE_UNAVAILABLE', detail, { cause: err });
  }

  /** Creates the five buckets when they are missing, then checks the server has conditional writes. */
  async ensureBuckets(): Promise<void> {
    for (const b of BUCKETS) await this.ensureBucket(b);
    await this.verifyConditionalWrites();
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

  private remember(bucket: Bucket, key: string, etag: string, history: string[]): void {
    const k = `${bucket}/${key}`;
    this.histories.delete(k);
    this.histories.set(k, { etag, history });
    if (this.histories.size > KNOWN_HISTORIES) {
      const oldest = this.histories.keys().next().value;
      if (oldest !== undefined) this.histories.delete(oldest);
    }
  }

  private putCommand(bucket: Bucket, key: string, data: Buffer, options: PutOptions, history: string[]) {
    return new PutObjectCommand({
      Bucket: this.bucketName(bucket),
      Key: key,
      Body: data,
      ContentLength: data.length,
      ContentType: options.contentType ?? contentTypeForKey(key),
      Metadata: { [WRITE_HISTORY_META]: history.join(' ') },
      IfNoneMatch: options.ifNoneMatch,
      IfMatch: options.ifMatch !== undefined ? `"${options.ifMatch}"` : undefined,
    });
  }

  private async rawPut(bucket: Bucket, key: string, data: Buffer, options: PutOptions): Promise<ObjectInfo> {
    if (options.ifNoneMatch !== undefined || options.ifMatch !== undefined) {
      return this.conditionalPut(bucket, key, data, options);
    }
    // A plain put may be resent: writing the same bytes twice is the same write.
    const history = historyOf(newWriteId(), 'blind');
    const res = await this.call('put', (abortSignal) =>
      this.client.send(this.putCommand(bucket, key, data, options, history), { abortSignal }),
    );
    const etag = stripQuotes(res.ETag);
    this.remember(bucket, key, etag, history);
    return { key, size: data.length, etag, lastModified: new Date() };
  }

  /**
   * A create-exclusive or compare-and-swap put. When its answer is lost (timeout, reset, 5xx) it may
   * have landed, and others may have written on top since: resending it would fail its own
   * precondition and double a compare-and-swap update when taken for a conflict. So it is sent once,
   * and after a lost answer the object's write history (write-history.ts) says whether it landed;
   * it is resent only while its precondition still holds, and an undecidable outcome is
   * MC_ERR_STORE_UNAVAILABLE, never a guess.
   */
  private async conditionalPut(
    bucket: Bucket,
    key: string,
    data: Buffer,
    options: PutOptions,
  ): Promise<ObjectInfo> {
    const id = newWriteId();
    let base: string;
    let history: string[];
    if (options.ifNoneMatch === '*') {
      base = CREATED;
      history = historyOf(id, 'created');
    } else {
      const seen = this.histories.get(`${bucket}/${key}`);
      let known = seen?.history;
      if (seen?.etag !== options.ifMatch) {
        // An etag this store did not read itself: read the history it names (and refuse early).
        const cur = await this.headWithHistory(bucket, key);
        if (!cur || cur.info.etag !== options.ifMatch) throw conflict(key);
        known = cur.history;
      }
      base = known?.[0] ?? UNKNOWN;
      history = historyOf(id, known ?? []);
    }
    const sends = Math.max(1, this.options.maxAttempts ?? 2);
    let refusedResend = false;
    for (let send = 1; ; send++) {
      let lost: MatchcastError;
      try {
        const res = await this.call('conditional put', (abortSignal) =>
          this.conditionalClient.send(this.putCommand(bucket, key, data, options, history), { abortSignal }),
        );
        const etag = stripQuotes(res.ETag);
        this.remember(bucket, key, etag, history);
        return { key, size: data.length, etag, lastModified: new Date() };
      } catch (err) {
        if (!(err instanceof MatchcastError)) throw err;
        // A refusal of the first send is certain; of a resend it may be the first send having landed.
        const definite =
          err.code === 'MC_ERR_CONFLICT'
            ? send === 1
            : err.code !== 'MC_ERR_STORE_UNAVAILABLE' || !mayResend(err.cause);
        if (definite) throw err;
        refusedResend ||= err.code === 'MC_ERR_CONFLICT';
        lost = err;
      }
      let cur: Awaited<ReturnType<S3ObjectStore['headWithHistory']>>;
      try {
        cur = await this.headWithHistory(bucket, key);
      } catch (err) {
        throw new MatchcastError(
          'MC_ERR_STORE_UNAVAILABLE',
          `S3 conditional put of ${key}: the answer was lost and the object cannot be read, so whether it was written is unknown`,
          { cause: err },
        );
      }
      const holds = options.ifNoneMatch === '*' ? cur === null : cur?.info.etag === options.ifMatch;
      if (cur?.history.includes(id)) {
        const etag = cur.history[0] === id ? cur.info.etag : createHash('md5').update(data).digest('hex');
        return { key, size: data.length, etag, lastModified: cur.info.lastModified };
      }
      const unknown = (why: string) =>
        new MatchcastError(
          'MC_ERR_STORE_UNAVAILABLE',
          `S3 conditional put of ${key}: the answer was lost and ${why}, so whether it was written is unknown`,
          { cause: lost },
        );
      if (holds) {
        // Not written (yet): resend the same write, so a late first send and the resend are one write.
        // Not after a refused resend: the precondition holding again means the object changed back
        // (deleted, say) after a send that may have landed.
        if (refusedResend) throw unknown('a resend was refused');
        if (send < sends) {
          await sleep(25 * send);
          continue;
        }
        throw unknown('every send was used');
      }
      // A write that landed and was deleted since counts as refused: it is not there to build on.
      const outcome = cur ? outcomeOf(cur.history, id, base) : 'refused';
      if (outcome === 'refused') throw conflict(key);
      throw unknown("the object's history does not reach back to its base");
    }
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
      if (options.ifNoneMatch === '*' || options.ifMatch !== undefined) await this.checkConditional(bucket);
      return this.rawPut(bucket, key, data, options);
    });
  }

  /**
   * Does the server reject a create-exclusive PUT on an existing key? Probed once per store (two
   * requests); a server that accepts it would silently break every compare-and-swap of the registry
   * and the run pointer, so it is refused with a coded error instead.
   */
  private checkConditional(bucket: Bucket): Promise<void> {
    this.conditionalCheck ??= (async () => {
      // One fixed key, overwritten and never deleted: concurrent probes of several processes agree,
      // and no listing races with a probe's deletion.
      const probe = `${RESERVED_SEGMENT_PREFIX}probe/conditional-writes`;
      await this.rawPut(bucket, probe, Buffer.from('1'), {});
      try {
        await this.rawPut(bucket, probe, Buffer.from('2'), { ifNoneMatch: '*' });
      } catch (err) {
        if (isMatchcastError(err, 'MC_ERR_CONFLICT')) return;
        throw err;
      }
      throw new MatchcastError(
        'MC_ERR_STORE_UNSUPPORTED',
        `S3 server at ${this.options.endpoint} ignores conditional writes (If-None-Match / If-Match); use AWS S3, MinIO or R2`,
      );
    })().catch((err: unknown) => {
      // A failed probe (store unreachable) is retried on the next conditional write; a refusal sticks.
      if (!isMatchcastError(err, 'MC_ERR_STORE_UNSUPPORTED')) this.conditionalCheck = undefined;
      throw err;
    });
    return this.conditionalCheck;
  }

  /** Throws MC_ERR_STORE_UNSUPPORTED when the server lacks conditional writes (probes once). */
  verifyConditionalWrites(bucket: Bucket = 'models'): Promise<void> {
    return this.withBucket(bucket, () => this.checkConditional(bucket));
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
      const etag = stripQuotes(res.ETag);
      this.remember(bucket, key, etag, parseHistory(res.Metadata?.[WRITE_HISTORY_META]));
      return {
        key,
        size: body.length,
        etag,
        lastModified: res.LastModified ?? new Date(0),
        body,
        contentType: res.ContentType,
      };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  private async headWithHistory(
    bucket: Bucket,
    key: string,
  ): Promise<{ info: ObjectInfo; history: string[] } | null> {
    return this.call('head', async (abortSignal) => {
      try {
        const res = await this.client.send(
          new HeadObjectCommand({ Bucket: this.bucketName(bucket), Key: key }),
          {
            abortSignal,
          },
        );
        const etag = stripQuotes(res.ETag);
        const history = parseHistory(res.Metadata?.[WRITE_HISTORY_META]);
        this.remember(bucket, key, etag, history);
        const info = {
          key,
          size: res.ContentLength ?? 0,
          etag,
          lastModified: res.LastModified ?? new Date(0),
        };
        return { info, history };
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
    return (await this.headWithHistory(bucket, key))?.info ?? null;
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
    this.histories.delete(`${bucket}/${key}`);
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
    this.conditionalClient.destroy();
  }
}
