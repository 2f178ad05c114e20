import { createHash, randomBytes } from 'node:crypto';
import { type BigIntStats, createReadStream } from 'node:fs';
import { link, mkdir, open, readdir, readFile, rename, rmdir, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { BUCKETS, type Bucket, isMatchcastError, MatchcastError } from '../domain/index.js';
import { contentTypeForKey } from './content-type.js';
import { acquireFileLock } from './file-lock.js';
import { compareKeys, RESERVED_SEGMENT_PREFIX, validateKey, validatePrefix } from './keys.js';
import type { ObjectInfo, ObjectStore, PutOptions, StoredObject } from './object-store.js';
import { signObjectUrl } from './signed-url.js';

/** Options of {@link FsObjectStore}. */
export interface FsObjectStoreOptions {
  /** Root folder; an object lives at `<root>/<bucket>/<key>`. Usually `<DATA_DIR>/objects`. */
  root: string;
  /** Base URL for signed links (`PUBLIC_BASE_URL`). Required by `presign`. */
  publicBaseUrl?: string;
  /** HMAC secret for signed links (see `resolveUrlSigningSecret`). Required by `presign`. */
  urlSigningSecret?: string;
  /** fsync file and folder on every write, so an acknowledged write survives a power cut. Default `true`. */
  durable?: boolean;
  /** A per-object lock older than this is taken over, ms. Default `30000`. */
  lockStaleMs?: number;
  /** Longest wait for a per-object lock before MC_ERR_CONFLICT, ms. Default `10000`. */
  lockTimeoutMs?: number;
}

/** What the sidecar records about the data file it describes. */
interface Sidecar {
  etag: string;
  size: number;
  ino: string;
  mtimeNs: string;
  contentType?: string;
}

const TMP = `${RESERVED_SEGMENT_PREFIX}tmp-`;
const LOCK = `${RESERVED_SEGMENT_PREFIX}lock-`;
const META = `${RESERVED_SEGMENT_PREFIX}meta-`;

function errno(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

function md5(buf: Buffer): string {
  return createHash('md5').update(buf).digest('hex');
}

async function md5File(file: string): Promise<string> {
  const hash = createHash('md5');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

function matches(meta: Sidecar | null, st: BigIntStats): meta is Sidecar {
  return (
    meta !== null &&
    meta.ino === st.ino.toString() &&
    meta.size === Number(st.size) &&
    meta.mtimeNs === st.mtimeNs.toString()
  );
}

/**
 * The folder driver of the object store. Every write goes to a temp file in the target's folder,
 * is fsynced and renamed into place, so readers see the old or the new object, never a partial one.
 * Writes and deletes of one key are serialised by a lock file (O_EXCL, stale-lock recovery), which
 * makes `ifMatch`/`ifNoneMatch` safe between processes sharing the folder. The etag is the content
 * MD5 (as on S3 for single-part uploads), kept in a sidecar that is trusted only while it matches the
 * data file's inode, size and mtime; otherwise it is recomputed from the file.
 */
export class FsObjectStore implements ObjectStore {
  readonly kind = 'fs' as const;
  readonly root: string;
  private readonly options: FsObjectStoreOptions;

  constructor(options: FsObjectStoreOptions) {
    this.options = options;
    this.root = path.resolve(options.root);
  }

  private bucketDir(bucket: Bucket): string {
    if (!(BUCKETS as readonly string[]).includes(bucket)) {
      throw new MatchcastError('MC_ERR_INVALID_KEY', `Unknown bucket ${JSON.stringify(bucket)}`);
    }
    return path.join(this.root, bucket);
  }

  /** Resolves a key to its file; the lexical check backs up key validation against any escape. */
  private locate(
    bucket: Bucket,
    key: string,
  ): { dir: string; file: string; base: string; bucketDir: string } {
    validateKey(key);
    const bucketDir = this.bucketDir(bucket);
    const file = path.resolve(bucketDir, ...key.split('/'));
    if (!file.startsWith(bucketDir + path.sep)) {
      throw new MatchcastError('MC_ERR_INVALID_KEY', `Object key ${JSON.stringify(key)} leaves its bucket`);
    }
    return { dir: path.dirname(file), file, base: path.basename(file), bucketDir };
  }

  private async wrap<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (isMatchcastError(err)) throw err;
      throw new MatchcastError(
        'MC_ERR_STORE_UNAVAILABLE',
        `Folder store: ${what} failed (${errno(err) ?? 'error'})`,
        {
          cause: err,
        },
      );
    }
  }

  private async readSidecar(dir: string, base: string): Promise<Sidecar | null> {
    try {
      return JSON.parse(await readFile(path.join(dir, `${META}${base}.json`), 'utf8')) as Sidecar;
    } catch {
      return null;
    }
  }

  private async info(
    key: string,
    dir: string,
    base: string,
    st: BigIntStats,
    file: string,
  ): Promise<ObjectInfo> {
    const meta = await this.readSidecar(dir, base);
    const etag = matches(meta, st) ? meta.etag : await md5File(file);
    return { key, size: Number(st.size), etag, lastModified: new Date(Number(st.mtimeMs)) };
  }

  private async statFile(file: string): Promise<BigIntStats | null> {
    try {
      const st = await stat(file, { bigint: true });
      return st.isFile() ? st : null;
    } catch (err) {
      if (errno(err) === 'ENOENT' || errno(err) === 'ENOTDIR') return null;
      throw err;
    }
  }

  private async syncDir(dir: string): Promise<void> {
    if (this.options.durable === false) return;
    const fh = await open(dir, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  }

  /** Writes the body to a fresh temp file beside the target; returns its path and identity. */
  private async writeTemp(
    dir: string,
    base: string,
    data: Buffer,
  ): Promise<{ tmp: string; st: BigIntStats }> {
    for (let attempt = 0; ; attempt++) {
      const tmp = path.join(dir, `${TMP}${base}-${randomBytes(6).toString('hex')}`);
      try {
        await mkdir(dir, { recursive: true });
        const fh = await open(tmp, 'wx', 0o644);
        try {
          await fh.writeFile(data);
          if (this.options.durable !== false) await fh.sync();
          return { tmp, st: await fh.stat({ bigint: true }) };
        } catch (err) {
          await unlink(tmp).catch(() => undefined);
          throw err;
        } finally {
          await fh.close();
        }
      } catch (err) {
        // ENOENT: a concurrent delete pruned the (empty) folder between mkdir and open.
        if (errno(err) === 'ENOENT' && attempt < 5) continue;
        // Only a collision inside a healthy bucket folder is the caller's conflict; a broken root is an outage.
        if ((errno(err) === 'ENOTDIR' || errno(err) === 'EEXIST') && (await this.isDir(this.root))) {
          throw new MatchcastError(
            'MC_ERR_CONFLICT',
            'Key collides with an existing object used as a folder',
          );
        }
        throw err;
      }
    }
  }

  private async isDir(dir: string): Promise<boolean> {
    try {
      return (await stat(dir)).isDirectory();
    } catch {
      return false;
    }
  }

  private lock(dir: string, base: string): Promise<() => Promise<void>> {
    return acquireFileLock(path.join(dir, `${LOCK}${base}`), {
      staleMs: this.options.lockStaleMs,
      timeoutMs: this.options.lockTimeoutMs,
    });
  }

  async put(
    bucket: Bucket,
    key: string,
    body: Buffer | string,
    options: PutOptions = {},
  ): Promise<ObjectInfo> {
    const { dir, file, base } = this.locate(bucket, key);
    return this.wrap('put', async () => {
      const data = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
      const etag = md5(data);
      const { tmp, st } = await this.writeTemp(dir, base, data);
      let release: (() => Promise<void>) | undefined;
      try {
        release = await this.lock(dir, base);
        if (options.ifNoneMatch === '*') {
          try {
            // link() never replaces an existing name: create-exclusive even against writers that
            // bypass the lock.
            await link(tmp, file);
          } catch (err) {
            if (errno(err) === 'EEXIST')
              throw new MatchcastError('MC_ERR_CONFLICT', `${bucket}/${key} already exists`);
            throw err;
          }
          await unlink(tmp);
        } else {
          if (options.ifMatch !== undefined) {
            const cur = await this.statFile(file);
            const curEtag = cur ? (await this.info(key, dir, base, cur, file)).etag : undefined;
            if (curEtag !== options.ifMatch) {
              throw new MatchcastError('MC_ERR_CONFLICT', `${bucket}/${key} changed (etag mismatch)`);
            }
          }
          try {
            await rename(tmp, file);
          } catch (err) {
            if (errno(err) === 'EISDIR' || errno(err) === 'ENOTEMPTY' || errno(err) === 'ENOTDIR') {
              throw new MatchcastError('MC_ERR_CONFLICT', 'Key collides with an existing folder of objects');
            }
            throw err;
          }
        }
        const sidecar: Sidecar = {
          etag,
          size: data.length,
          ino: st.ino.toString(),
          mtimeNs: st.mtimeNs.toString(),
          contentType: options.contentType,
        };
        const metaTmp = path.join(dir, `${TMP}${base}-${randomBytes(6).toString('hex')}.json`);
        await writeFileExclusive(metaTmp, JSON.stringify(sidecar));
        await rename(metaTmp, path.join(dir, `${META}${base}.json`));
        await this.syncDir(dir);
        return { key, size: data.length, etag, lastModified: new Date(Number(st.mtimeMs)) };
      } finally {
        await unlink(tmp).catch(() => undefined);
        await release?.();
      }
    });
  }

  async get(bucket: Bucket, key: string): Promise<StoredObject | null> {
    const { dir, file, base } = this.locate(bucket, key);
    return this.wrap('get', async () => {
      let fh: Awaited<ReturnType<typeof open>>;
      try {
        fh = await open(file, 'r');
      } catch (err) {
        if (errno(err) === 'ENOENT' || errno(err) === 'ENOTDIR') return null;
        throw err;
      }
      try {
        // The open handle pins this version: writers replace the name, never the bytes.
        const st = await fh.stat({ bigint: true });
        if (!st.isFile()) return null;
        const body = await fh.readFile();
        const meta = await this.readSidecar(dir, base);
        const trusted = matches(meta, st);
        return {
          key,
          size: body.length,
          etag: trusted ? meta.etag : md5(body),
          lastModified: new Date(Number(st.mtimeMs)),
          body,
          contentType: (trusted ? meta.contentType : undefined) ?? contentTypeForKey(key),
        };
      } finally {
        await fh.close();
      }
    });
  }

  async head(bucket: Bucket, key: string): Promise<ObjectInfo | null> {
    const { dir, file, base } = this.locate(bucket, key);
    return this.wrap('head', async () => {
      const st = await this.statFile(file);
      return st ? this.info(key, dir, base, st, file) : null;
    });
  }

  async list(bucket: Bucket, prefix = ''): Promise<ObjectInfo[]> {
    validatePrefix(prefix);
    const bucketDir = this.bucketDir(bucket);
    return this.wrap('list', async () => {
      const out: ObjectInfo[] = [];
      const walk = async (dir: string, keyPrefix: string): Promise<void> => {
        let entries: import('node:fs').Dirent[];
        try {
          entries = await readdir(dir, { withFileTypes: true });
        } catch (err) {
          if (errno(err) === 'ENOENT' || errno(err) === 'ENOTDIR') return;
          throw err;
        }
        for (const e of entries) {
          if (e.name.startsWith(RESERVED_SEGMENT_PREFIX)) continue;
          const key = keyPrefix + e.name;
          if (e.isDirectory()) {
            const asDir = `${key}/`;
            if (asDir.startsWith(prefix) || prefix.startsWith(asDir))
              await walk(path.join(dir, e.name), asDir);
          } else if (e.isFile() && key.startsWith(prefix)) {
            const file = path.join(dir, e.name);
            const st = await this.statFile(file);
            if (st) out.push(await this.info(key, dir, e.name, st, file));
          }
        }
      };
      // Start at the deepest folder the prefix names, not at the bucket root.
      const dirPart = prefix.includes('/') ? prefix.slice(0, prefix.lastIndexOf('/') + 1) : '';
      await walk(path.join(bucketDir, ...dirPart.split('/').filter(Boolean)), dirPart);
      return out.sort((a, b) => compareKeys(a.key, b.key));
    });
  }

  async delete(bucket: Bucket, key: string): Promise<void> {
    const { dir, file, base, bucketDir } = this.locate(bucket, key);
    await this.wrap('delete', async () => {
      try {
        await stat(dir);
      } catch (err) {
        if (errno(err) === 'ENOENT' || errno(err) === 'ENOTDIR') return;
        throw err;
      }
      const release = await this.lock(dir, base);
      try {
        for (const f of [file, path.join(dir, `${META}${base}.json`)]) {
          try {
            await unlink(f);
          } catch (err) {
            // EISDIR/EPERM: the name is a folder of other objects, so this object does not exist.
            if (!['ENOENT', 'ENOTDIR', 'EISDIR', 'EPERM'].includes(errno(err) ?? '')) throw err;
          }
        }
        await this.syncDir(dir);
      } finally {
        await release();
      }
      // Prune folders left empty so that a key can later be reused as an object name.
      for (let d = dir; d.startsWith(bucketDir + path.sep); d = path.dirname(d)) {
        try {
          await rmdir(d);
        } catch {
          break;
        }
      }
    });
  }

  async presign(bucket: Bucket, key: string, ttlSeconds: number): Promise<string> {
    this.locate(bucket, key);
    const { publicBaseUrl, urlSigningSecret } = this.options;
    if (!publicBaseUrl || !urlSigningSecret) {
      throw new MatchcastError(
        'MC_ERR_CONFIG',
        'Folder store has no PUBLIC_BASE_URL or URL-signing secret for links',
      );
    }
    return signObjectUrl({ baseUrl: publicBaseUrl, bucket, key, ttlSeconds, secret: urlSigningSecret });
  }

  async ensureBuckets(): Promise<void> {
    await this.wrap('ensure buckets', async () => {
      for (const b of BUCKETS) await mkdir(this.bucketDir(b), { recursive: true });
    });
  }

  async close(): Promise<void> {}
}

async function writeFileExclusive(file: string, text: string): Promise<void> {
  const fh = await open(file, 'wx', 0o644);
  try {
    await fh.writeFile(text);
  } finally {
    await fh.close();
  }
}
