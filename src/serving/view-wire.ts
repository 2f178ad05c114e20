import type { MessagePort } from 'node:worker_threads';
import { JsonIndex } from './json-index.js';
import type { EncodedBody } from './types.js';
import { describe } from './validate.js';
import { type BuildJob, type BuiltViews, buildViews } from './view-build.js';

/**
 * Views cross from the builder thread as one transferable ArrayBuffer per view (parts 8-byte aligned)
 * plus a small description: no copy, no per-match objects, and no view keeps a replaced one alive.
 */
export interface Group {
  buffer: ArrayBuffer;
  /** Offset and length of each part, in the order they were added. */
  spans: number[];
}

interface WireBody {
  size: number;
  etags: EncodedBody['etags'];
  /** Part numbers; identity -1 when the body keeps no identity copy. */
  identity: number;
  gzip: number;
  br: number;
}

interface WireIndex {
  ids: number;
  starts: number;
  ends: number;
  slab: number;
}

export interface WireViews {
  verdicts: BuiltViews['verdicts'];
  predictions?: { group: Group; index: WireIndex; bulk: WireBody } | null;
  cards?: { group: Group; body: WireBody } | null;
  odds?: { group: Group; body: WireBody } | null;
  markets?: { group: Group; index: WireIndex } | null;
}

export type ToBuilder = { t: 'build'; id: number; job: BuildJob };
export type FromBuilder =
  | { t: 'built'; id: number; views: WireViews }
  | { t: 'failed'; id: number; error: string }
  | { t: 'init-error'; message: string };

/** Where one view's parts lie in its buffer: offset and length of each, 8-byte aligned. */
export interface Layout {
  parts: ArrayBufferView[];
  spans: number[];
  total: number;
}

/** Turns a view's laid-out parts into its buffer: a copy for the thread, a file region for the cache. */
export type Place = (layout: Layout) => Group;

class Packer {
  private readonly parts: ArrayBufferView[] = [];

  add(part: ArrayBufferView): number {
    this.parts.push(part);
    return this.parts.length - 1;
  }

  body(b: EncodedBody): WireBody {
    return {
      size: b.size,
      etags: b.etags,
      identity: b.identity ? this.add(b.identity) : -1,
      gzip: this.add(b.gzip),
      br: this.add(b.br),
    };
  }

  index(x: JsonIndex): WireIndex {
    return {
      ids: this.add(x.ids),
      starts: this.add(x.starts),
      ends: this.add(x.ends),
      slab: this.add(x.slab),
    };
  }

  finish(place: Place): Group {
    const spans: number[] = [];
    let total = 0;
    for (const p of this.parts) {
      total = (total + 7) & ~7;
      spans.push(total, p.byteLength);
      total += p.byteLength;
    }
    return place({ parts: this.parts, spans, total });
  }
}

/** A placement that copies the parts into one new buffer, added to `transfer`. */
function copyInto(transfer: ArrayBuffer[]): Place {
  return ({ parts, spans, total }) => {
    const buffer = new ArrayBuffer(total);
    const bytes = new Uint8Array(buffer);
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i];
      bytes.set(new Uint8Array(p.buffer, p.byteOffset, p.byteLength), spans[2 * i]);
    }
    transfer.push(buffer);
    return { buffer, spans };
  };
}

/** One view packed into a group of its own; null and undefined (none, unchanged) pass through. */
function packed<T, W>(
  view: T | null | undefined,
  place: Place,
  pack: (p: Packer, view: T) => W,
): (W & { group: Group }) | null | undefined {
  if (view === null || view === undefined) return view as null | undefined;
  const p = new Packer();
  const wire = pack(p, view);
  return { ...wire, group: p.finish(place) };
}

/** Describes the built views as groups of parts, each placed by `place`. */
export function layoutViews(v: BuiltViews, place: Place): WireViews {
  return {
    verdicts: v.verdicts,
    predictions: packed(v.predictions, place, (p, x) => ({
      index: p.index(x.records),
      bulk: p.body(x.bulk),
    })),
    cards: packed(v.cards, place, (p, b) => ({ body: p.body(b) })),
    odds: packed(v.odds, place, (p, b) => ({ body: p.body(b) })),
    markets: packed(v.markets, place, (p, x) => ({ index: p.index(x) })),
  };
}

/** Lays the built views out for `postMessage`; returns the message and its transfer list. */
export function packViews(v: BuiltViews): { views: WireViews; transfer: ArrayBuffer[] } {
  const transfer: ArrayBuffer[] = [];
  return { views: layoutViews(v, copyInto(transfer)), transfer };
}

function bytes(g: Group, part: number): Buffer {
  return Buffer.from(g.buffer, g.spans[2 * part], g.spans[2 * part + 1]);
}

function body(g: Group, w: WireBody): EncodedBody {
  return {
    identity: w.identity < 0 ? null : bytes(g, w.identity),
    size: w.size,
    gzip: bytes(g, w.gzip),
    br: bytes(g, w.br),
    etags: w.etags,
  };
}

function index(g: Group, w: WireIndex): JsonIndex {
  const at = (part: number) => g.spans[2 * part];
  const n = g.spans[2 * w.ids + 1] / 8;
  return new JsonIndex(
    new Float64Array(g.buffer, at(w.ids), n),
    new Uint32Array(g.buffer, at(w.starts), n),
    new Uint32Array(g.buffer, at(w.ends), n),
    bytes(g, w.slab),
  );
}

/** Null and undefined (none, unchanged) pass through; a view is made from its group. */
function unpacked<W, T>(wire: W | null | undefined, make: (w: W) => T): T | null | undefined {
  return wire === null || wire === undefined ? (wire as null | undefined) : make(wire);
}

/** The views of a `built` message, as views into its buffers (no copy). */
export function unpackViews(w: WireViews): BuiltViews {
  return {
    verdicts: w.verdicts,
    predictions: unpacked(w.predictions, (p) => ({
      records: index(p.group, p.index),
      bulk: body(p.group, p.bulk),
    })),
    cards: unpacked(w.cards, (c) => body(c.group, c.body)),
    odds: unpacked(w.odds, (o) => body(o.group, o.body)),
    markets: unpacked(w.markets, (m) => index(m.group, m.index)),
  };
}

/**
 * The builder thread's loop, answered with transferred buffers (nothing of a build is kept once
 * posted); `build` is replaceable for tests of a failing builder.
 */
export function serveBuilds(
  port: MessagePort,
  build: (job: BuildJob) => Promise<BuiltViews> = buildViews,
): void {
  port.on('message', async (msg: ToBuilder) => {
    if (msg.t !== 'build') return;
    let reply: { message: FromBuilder; transfer: ArrayBuffer[] };
    try {
      const { views, transfer } = packViews(await build(msg.job));
      reply = { message: { t: 'built', id: msg.id, views }, transfer };
    } catch (err) {
      reply = {
        message: { t: 'failed', id: msg.id, error: describe(err) },
        transfer: [],
      };
    }
    port.postMessage(reply.message, reply.transfer);
  });
}
