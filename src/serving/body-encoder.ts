import { createHash } from 'node:crypto';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { createBrotliCompress, createGzip, constants as zlibConstants } from 'node:zlib';
import { BROTLI_QUALITY, type EncodedBody, etagsFromDigest, IDENTITY_MAX_BYTES } from './encoded-body.js';

function drained(stream: Writable): Promise<unknown> {
  return stream.writableNeedDrain ? once(stream, 'drain') : Promise.resolve();
}

const CHUNK_CHARS = 256 * 1024;

/** Streams JSON text into the hash and compressors, so the identity body is held only when small. */
export class BodyEncoder {
  private readonly hash = createHash('sha256');
  private readonly gz = createGzip({ level: 6 });
  private readonly br = createBrotliCompress({
    params: {
      [zlibConstants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
      [zlibConstants.BROTLI_PARAM_MODE]: zlibConstants.BROTLI_MODE_TEXT,
    },
  });
  private readonly gzOut: Buffer[] = [];
  private readonly brOut: Buffer[] = [];
  private kept: Buffer[] | null = [];
  private pending: string[] = [];
  private pendingChars = 0;
  private size = 0;

  constructor(private readonly identityMaxBytes = IDENTITY_MAX_BYTES) {
    this.gz.on('data', (c: Buffer) => this.gzOut.push(c));
    this.br.on('data', (c: Buffer) => this.brOut.push(c));
  }

  async push(text: string): Promise<void> {
    this.pending.push(text);
    this.pendingChars += text.length;
    if (this.pendingChars >= CHUNK_CHARS) await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const chunk = Buffer.from(this.pending.join(''), 'utf8');
    this.pending = [];
    this.pendingChars = 0;
    this.size += chunk.length;
    this.hash.update(chunk);
    if (this.kept) {
      if (this.size <= this.identityMaxBytes) this.kept.push(chunk);
      else this.kept = null;
    }
    this.gz.write(chunk);
    this.br.write(chunk);
    // Both waits are set up in this tick: awaiting one stream's drain first could miss the other's
    // 'drain' and then wait on a promise nothing settles (the load would hang silently).
    await Promise.all([drained(this.gz), drained(this.br)]);
  }

  /** Encodes a JSON array of `record(item)` for each item, one item at a time. */
  static async array<T>(
    items: Iterable<T>,
    record: (item: T) => unknown,
    identityMaxBytes?: number,
  ): Promise<EncodedBody> {
    const out = new BodyEncoder(identityMaxBytes);
    let sep = '[';
    for (const item of items) {
      await out.push(sep + JSON.stringify(record(item)));
      sep = ',';
    }
    await out.push(sep === '[' ? '[]' : ']');
    return out.finish();
  }

  async finish(): Promise<EncodedBody> {
    await this.flush();
    this.gz.end();
    this.br.end();
    await Promise.all([finished(this.gz), finished(this.br)]);
    return {
      identity: this.kept ? Buffer.concat(this.kept, this.size) : null,
      size: this.size,
      gzip: Buffer.concat(this.gzOut),
      br: Buffer.concat(this.brOut),
      etags: etagsFromDigest(this.hash.digest()),
    };
  }
}
