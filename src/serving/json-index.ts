/** JSON bodies by match id off the JS heap: one slab and typed arrays, movable between threads. */
export class JsonIndex {
  constructor(
    readonly ids: Float64Array,
    readonly starts: Uint32Array,
    readonly ends: Uint32Array,
    readonly slab: Buffer,
  ) {}

  get count(): number {
    return this.ids.length;
  }

  /** A view into the slab (no copy), or undefined. */
  get(id: number): Buffer | undefined {
    const ids = this.ids;
    let lo = 0;
    let hi = ids.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = ids[mid];
      if (v < id) lo = mid + 1;
      else if (v > id) hi = mid - 1;
      else return this.slab.subarray(this.starts[mid], this.ends[mid]);
    }
    return undefined;
  }
}

/** Collects bodies (a later one for an id wins) into one growing Buffer, so the row strings never pile up. */
export class JsonIndexBuilder {
  private slab: Buffer;
  private ids: number[] = [];
  private offsets: number[] = [0];

  /** @param capacity expected slab bytes (grows by doubling) */
  constructor(capacity = 4096) {
    this.slab = Buffer.allocUnsafe(Math.max(64, capacity));
  }

  push(id: number, json: string): void {
    const len = this.offsets[this.offsets.length - 1];
    // A UTF-16 code unit becomes at most 3 UTF-8 bytes.
    const worst = json.length * 3;
    if (len + worst > this.slab.length) {
      const next = Buffer.allocUnsafe(Math.max(this.slab.length * 2, len + worst));
      this.slab.copy(next, 0, 0, len);
      this.slab = next;
    }
    this.ids.push(id);
    this.offsets.push(len + this.slab.write(json, len, 'utf8'));
  }

  finish(): JsonIndex {
    const n = this.ids.length;
    const order = Array.from({ length: n }, (_, i) => i);
    // Stable by insertion order, so the last of duplicate ids is the one kept.
    order.sort((a, b) => this.ids[a] - this.ids[b] || a - b);
    const keep = order.filter((i, k) => k + 1 === n || this.ids[order[k + 1]] !== this.ids[i]);
    const ids = new Float64Array(keep.length);
    const starts = new Uint32Array(keep.length);
    const ends = new Uint32Array(keep.length);
    keep.forEach((i, k) => {
      ids[k] = this.ids[i];
      starts[k] = this.offsets[i];
      ends[k] = this.offsets[i + 1];
    });
    // A nearly full slab is kept as a view (no second full-size copy); otherwise a copy frees the slack.
    const len = this.offsets[n];
    let slab = this.slab.subarray(0, len);
    if (len < this.slab.length * 0.85) {
      slab = Buffer.allocUnsafeSlow(len);
      this.slab.copy(slab, 0, 0, len);
    }
    this.ids = [];
    this.offsets = [0];
    return new JsonIndex(ids, starts, ends, slab);
  }
}
