import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../logger.js';
import { describe } from './validate.js';
import type { BuiltViews } from './view-build.js';
import { type Group, layoutViews, unpackViews, type WireViews } from './view-wire.js';

// Built views kept on disk, so a restart serves without building; an entry failing a checksum is ignored.
const MAGIC = Buffer.from('MCVIEWS1');
const PREFIX = 'views-';

/** SHA-256 of the code that builds and lays out the views, so an upgrade never reads an older entry. */
let fingerprint: string | undefined;
export function buildCodeFingerprint(): string {
  if (fingerprint !== undefined) return fingerprint;
  const here = path.dirname(fileURLToPath(import.meta.url));
  const h = createHash('sha256');
  for (const dir of [here, path.join(here, '..', 'domain')]) {
    let names: string[] = [];
    try {
      names = readdirSync(dir)
        .filter((n) => /\.(js|ts|mjs)$/.test(n))
        .sort();
    } catch {
      // no such folder (a bundle): the bundle's own file is in `here`
    }
    for (const name of names) h.update(name).update(readFileSync(path.join(dir, name)));
  }
  fingerprint = h.digest('hex');
  return fingerprint;
}

/** What a build depends on: each artifact's identity (`key#sha256`, null: none) and the settings. */
export interface ViewsCacheKey {
  predictions: string | null;
  odds: string | null;
  markets: string | null;
  bookmakerUrlTemplate: string;
  identityMaxBytes: number | null;
}

interface Region {
  offset: number;
  length: number;
  sha256: string;
}

interface Header {
  key: string;
  regions: Region[];
  /** The wire description, each group's buffer replaced by its region number. */
  views: WireViews;
}

const align8 = (n: number) => (n + 7) & ~7;

export class ViewsCache {
  constructor(
    private readonly dir: string,
    private readonly log: Logger,
  ) {}

  static key(k: ViewsCacheKey, code = buildCodeFingerprint()): string {
    const text = JSON.stringify([
      code,
      k.predictions,
      k.odds,
      k.markets,
      k.bookmakerUrlTemplate,
      k.identityMaxBytes,
    ]);
    return createHash('sha256').update(text).digest('hex').slice(0, 32);
  }

  private file(key: string): string {
    return path.join(this.dir, `${PREFIX}${key}.bin`);
  }

  /** The views stored under `key`, or null (none, unreadable, or failing a checksum). */
  async read(key: string): Promise<BuiltViews | null> {
    let fh: Awaited<ReturnType<typeof open>>;
    try {
      fh = await open(this.file(key), 'r');
    } catch {
      return null;
    }
    try {
      const head = Buffer.alloc(MAGIC.length + 4);
      await fh.read(head, 0, head.length, 0);
      if (!head.subarray(0, MAGIC.length).equals(MAGIC)) throw new Error('not a views cache file');
      const headerLength = head.readUInt32LE(MAGIC.length);
      const headerBytes = Buffer.alloc(headerLength);
      const { bytesRead } = await fh.read(headerBytes, 0, headerLength, head.length);
      if (bytesRead !== headerLength) throw new Error('truncated header');
      const header = JSON.parse(headerBytes.toString('utf8')) as Header;
      if (header.key !== key) throw new Error('another key');
      const dataStart = align8(head.length + headerLength);
      const buffers: ArrayBuffer[] = [];
      for (const r of header.regions) {
        const buffer = new ArrayBuffer(r.length);
        const view = new Uint8Array(buffer);
        const got = await fh.read(view, 0, r.length, dataStart + r.offset);
        if (got.bytesRead !== r.length) throw new Error('truncated region');
        if (createHash('sha256').update(view).digest('hex') !== r.sha256)
          throw new Error('checksum mismatch');
        buffers.push(buffer);
      }
      const { predictions, cards, odds, markets } = header.views;
      for (const g of [predictions, cards, odds, markets])
        if (g) g.group.buffer = buffers[g.group.buffer as unknown as number];
      return unpackViews(header.views);
    } catch (err) {
      this.log.warn({ key, err: describe(err) }, 'serving: views cache entry unusable; building the views');
      return null;
    } finally {
      await fh.close().catch(() => undefined);
    }
  }

  /** Stores `views` under `key` (temporary file, then rename; no copy in memory); drops other entries. */
  async write(key: string, views: BuiltViews): Promise<void> {
    const regions: Region[] = [];
    // Each part after the zero padding that aligns it.
    const chunks: Uint8Array[] = [];
    let end = 0;
    const wire = layoutViews(views, ({ parts, spans, total }): Group => {
      const offset = align8(end);
      const h = createHash('sha256');
      parts.forEach((p, j) => {
        const pad = new Uint8Array(offset + spans[2 * j] - end);
        const bytes = new Uint8Array(p.buffer, p.byteOffset, p.byteLength);
        // A region's checksum covers the padding between its parts, not the one before it.
        if (j > 0) h.update(pad);
        h.update(bytes);
        chunks.push(pad, bytes);
        end = offset + spans[2 * j] + p.byteLength;
      });
      regions.push({ offset, length: total, sha256: h.digest('hex') });
      // The region number stands in for the buffer in the stored description.
      return { buffer: (regions.length - 1) as unknown as ArrayBuffer, spans };
    });
    const header = Buffer.from(JSON.stringify({ key, regions, views: wire } satisfies Header), 'utf8');
    const head = Buffer.alloc(MAGIC.length + 4);
    MAGIC.copy(head);
    head.writeUInt32LE(header.length, MAGIC.length);
    const dataStart = align8(head.length + header.length);
    await mkdir(this.dir, { recursive: true });
    const target = this.file(key);
    const tmp = `${target}.${process.pid}.tmp`;
    const fh = await open(tmp, 'w');
    try {
      await fh.writev([head, header, new Uint8Array(dataStart - head.length - header.length), ...chunks]);
    } catch (err) {
      await fh.close().catch(() => undefined);
      await rm(tmp, { force: true });
      throw err;
    }
    await fh.close();
    await rename(tmp, target);
    for (const name of await readdir(this.dir)) {
      if (name.startsWith(PREFIX) && name.endsWith('.bin') && name !== path.basename(target))
        await rm(path.join(this.dir, name), { force: true });
    }
  }
}
