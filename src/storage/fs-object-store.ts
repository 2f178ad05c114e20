import { randomBytes } from 'node:crypto';
import type { BigIntStats } from 'node:fs';
import { mkdir, open, readdir, rename, rmdir, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BUCKETS, type Bucket, isMatchcastError, MatchcastError } from '../domain/index.js';
import { contentTypeForKey } from './content-type.js';
import { compareKeys, RESERVED_SEGMENT_PREFIX, validateBucket, validateKey, validatePrefix } from './keys.js';
import type { ObjectInfo, ObjectStore, PutOptions, StoredObject } from './object-store.js';
import { signObjectUrl } from './signed-url.js';

interface FsObjectStoreOptions {
  /** Root folder; an object lives at `<root>/<bucket>/<key>`. Usually `<DATA_DIR>/objects`. */
  root: string;
  /** Base URL for signed links (`PUBLIC_BASE_URL`). Required by `presign`. */
  publicBaseUrl?: string;
  /** HMAC secret for signed links (see `resolveUrlSigningSecret`). Required by `presign`. */
  urlSigningSecret?: string;
}

const TMP = `${RESERVED_SEGMENT_PREFIX}tmp-`;
/** Per-object metadata files written by earlier versions; never read now, removed with their object. */
const LEGACY_META = `${RESERVED_SEGMENT_PREFIX}meta-`;

function errno(err: unknown): string {
  return (err as NodeJS.ErrnoException | undefined)?.code ?? '';
}

/** A read's `catch`: null when the name is missing or not a file (nor a folder, for readdir). */
function absent(err: unknown): null {
  if (['ENOENT', 'ENOTDIR', 'EISDIR'].includes(errno(err))) return null;
  throw err;
}

/** The change tag of a file (inode, size, mtime): every put renames a new file into place. */
function etagOf(st: BigIntStats): string {
  return `${st.ino.toString(16)}-${st.size.toString(16)}-${st.mtimeNs.toString(16)}`;
}

function infoOf(key: string, st: BigIntStats): ObjectInfo {
  return { key, size: Number(st.size), etag: etagOf(st), lastModified: new Date(Number(st.mtimeMs)) };
}

/**
 * The folder driver: a write goes to a temp file beside the target, fsynced, renamed into place and the
 * folder fsynced, so readers never see a partial object and an acknowledged write survives a crash.
 */
export class FsObjectStore implements ObjectStore {
  readonly kind = 'fs' as const;
  readonly root: string;

  constructor(private readonly options: FsObjectStoreOptions) {
    this.root = path.resolve(options.root);
  }

  private bucketDir(bucket: Bucket): string {
    return path.join(this.root, validateBucket(bucket));
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

  private wrap<T>(what: string, fn: () => Promise<T>): Promise<T> {
    return fn().catch((err) => {
      if (isMatchcastError(err)) throw err;
      const detail = `Folder store: ${what} failed (${errno(err) || 'error'})`;
      throw new MatchcastError('MC_ERR_STORE_UNAVAILABLE', detail, { cause: err });
    });
  }

  private async statFile(file: string): Promise<BigIntStats | null> {
    const st = await stat(file, { bigint: true }).catch(absent);
    return st?.isFile() ? st : null;
  }

  private async syncDir(dir: string): Promise<void> {
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
        await writeFile(tmp, data, { flag: 'wx', mode: 0o644, flush: true });
        return { tmp, st: await stat(tmp, { bigint: true }) };
      } catch (err) {
        // No partial file left behind (EEXIST: the name is another writer's).
        if (errno(err) !== 'EEXIST') await unlink(tmp).catch(() => undefined);
        // ENOENT: a concurrent delete pruned the (empty) folder between mkdir and open.
        if (errno(err) === 'ENOENT' && attempt < 5) continue;
        // Only a collision inside a healthy bucket folder is the caller's conflict; a broken root is an outage.
        const collides = errno(err) === 'ENOTDIR' || errno(err) === 'EEXIST';
        if (collides && (await stat(this.root).catch(() => null))?.isDirectory()) {
          throw new MatchcastError(
            'MC_ERR_CONFLICT',
            'Key collides with an existing object used as a folder',
          );
        }
        throw err;
      }
    }
  }

  async put(
    bucket: Bucket,
    key: string,
    body: Buffer | string,
    // The content type follows from the key's extension (see `get`); nothing is stored beside the file.
    _options?: PutOptions,
  ): Promise<ObjectInfo> {
    const { dir, file, base } = this.locate(bucket, key);
    return this.wrap('put', async () => {
      const data = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
      const { tmp, st } = await this.writeTemp(dir, base, data);
      try {
        await rename(tmp, file);
      } catch (err) {
        await unlink(tmp).catch(() => undefined);
        if (['EISDIR', 'ENOTEMPTY', 'ENOTDIR'].includes(errno(err))) {
          throw new MatchcastError('MC_ERR_CONFLICT', 'Key collides with an existing folder of objects');
        }
        throw err;
      }
      await this.syncDir(dir);
      // rename keeps the inode and times, so the temp file's identity is the object's.
      return infoOf(key, st);
    });
  }

  async get(bucket: Bucket, key: string): Promise<StoredObject | null> {
    const { file } = this.locate(bucket, key);
    return this.wrap('get', async () => {
      const fh = await open(file, 'r').catch(absent);
      if (!fh) return null;
      try {
        // The open handle pins this version: writers replace the name, never the bytes.
        const st = await fh.stat({ bigint: true });
        if (!st.isFile()) return null;
        const body = await fh.readFile();
        return { ...infoOf(key, st), body, contentType: contentTypeForKey(key) };
      } finally {
        await fh.close();
      }
    });
  }

  async head(bucket: Bucket, key: string): Promise<ObjectInfo | null> {
    const { file } = this.locate(bucket, key);
    return this.wrap('head', async () => {
      const st = await this.statFile(file);
      return st ? infoOf(key, st) : null;
    });
  }

  async list(bucket: Bucket, prefix = ''): Promise<ObjectInfo[]> {
    validatePrefix(prefix);
    const bucketDir = this.bucketDir(bucket);
    return this.wrap('list', async () => {
      const out: ObjectInfo[] = [];
      const walk = async (dir: string, keyPrefix: string): Promise<void> => {
        const entries = await readdir(dir, { withFileTypes: true }).catch(absent);
        for (const e of entries ?? []) {
          // Temp files of writes in progress, and metadata files of earlier versions.
          if (e.name.startsWith(RESERVED_SEGMENT_PREFIX)) continue;
          const key = keyPrefix + e.name;
          if (e.isDirectory()) {
            const asDir = `${key}/`;
            if (asDir.startsWith(prefix) || prefix.startsWith(asDir))
              await walk(path.join(dir, e.name), asDir);
          } else if (e.isFile() && key.startsWith(prefix)) {
            const st = await this.statFile(path.join(dir, e.name));
            if (st) out.push(infoOf(key, st));
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
      let removed = false;
      for (const f of [file, path.join(dir, `${LEGACY_META}${base}.json`)]) {
        try {
          await unlink(f);
          removed = true;
        } catch (err) {
          // EISDIR/EPERM: the name is a folder of other objects, so this object does not exist.
          if (!['ENOENT', 'ENOTDIR', 'EISDIR', 'EPERM'].includes(errno(err))) throw err;
        }
      }
      if (!removed) return;
      await this.syncDir(dir);
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
