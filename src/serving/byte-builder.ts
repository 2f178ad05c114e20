/**
 * Appends UTF-8 text into one growing Buffer. Building a 30 MB JSON array this way avoids holding
 * the row strings, their joined string and the final Buffer at the same time (three copies).
 */
export class ByteBuilder {
  private buf: Buffer;
  private len = 0;

  /** @param capacity initial bytes; grows by doubling. */
  constructor(capacity: number) {
    this.buf = Buffer.allocUnsafe(Math.max(64, capacity));
  }

  get length(): number {
    return this.len;
  }

  push(text: string): void {
    // A UTF-16 code unit becomes at most 3 UTF-8 bytes.
    const worst = text.length * 3;
    if (this.len + worst > this.buf.length) {
      const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + worst));
      this.buf.copy(next, 0, 0, this.len);
      this.buf = next;
    }
    this.len += this.buf.write(text, this.len, 'utf8');
  }

  /**
   * The bytes written. When the working buffer is nearly full it is returned as is (a view) to
   * avoid a second full-size copy at load time; otherwise an exact-size copy frees the slack.
   */
  toBuffer(): Buffer {
    if (this.len >= this.buf.length * 0.85) return this.buf.subarray(0, this.len);
    const out = Buffer.allocUnsafeSlow(this.len);
    this.buf.copy(out, 0, 0, this.len);
    return out;
  }
}
