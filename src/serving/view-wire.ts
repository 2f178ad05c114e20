import type { MessagePort } from 'node:worker_threads';
import { JsonIndex } from './json-index.js';
import { PredictionsView } from './predictions.js';
import type { EncodedBody } from './types.js';
import { type BuildJob, type BuiltViews, buildViews } from './view-build.js';

/**
 * Views cross from the builder thread as one transferable ArrayBuffer per view (its parts laid out
 * end to end, 8-byte aligned) plus a small description: moving them costs the serving thread no copy
 * and no per-match objects. Each view has its own buffer, so a view that keeps serving never keeps a
 * replaced one alive.
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
    const p = x.parts();
    return {
      ids: this.add(p.ids),
      starts: this.add(p.starts),
      ends: this.add(p.ends),
      slab: this.add(p.slab),
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

/** Describes the built views as groups of parts, each placed by `place`. */
export function layoutViews(v: BuiltViews, place: Place): WireViews {
  const out: WireViews = { verdicts: v.verdicts };
  if (v.predictions !== undefined) {
    if (v.predictions === null) out.predictions = null;
    else {
      const p = new Packer();
      const index = p.index(v.predictions.records);
      const bulk = p.body(v.predictions.bulk);
      out.predictions = { index, bulk, group: p.finish(place) };
    }
  }
  for (const name of ['cards', 'odds'] as const) {
    const b = v[name];
    if (b === undefined) continue;
    if (b === null) out[name] = null;
    else {
      const p = new Packer();
      const body = p.body(b);
      out[name] = { body, group: p.finish(place) };
    }
  }
  if (v.markets !== undefined) {
    if (v.markets === null) out.markets = null;
    else {
      const p = new Packer();
      const index = p.index(v.markets);
      out.markets = { index, group: p.finish(place) };
    }
  }
  return out;
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

/** The views of a `built` message, as views into its buffers (no copy). */
export function unpackViews(w: WireViews): BuiltViews {
  const out: BuiltViews = { verdicts: w.verdicts };
  if (w.predictions !== undefined)
    out.predictions = w.predictions
      ? new PredictionsView(
          index(w.predictions.group, w.predictions.index),
          body(w.predictions.group, w.predictions.bulk),
        )
      : null;
  if (w.cards !== undefined) out.cards = w.cards ? body(w.cards.group, w.cards.body) : null;
  if (w.odds !== undefined) out.odds = w.odds ? body(w.odds.group, w.odds.body) : null;
  if (w.markets !== undefined) out.markets = w.markets ? index(w.markets.group, w.markets.index) : null;
  return out;
}

/**
 * The builder thread's loop: one build at a time, answered with transferred buffers. Nothing of a
 * build is kept once it is posted, so an idle thread holds little memory. `build` is replaceable
 * for tests of a failing builder.
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
        message: { t: 'failed', id: msg.id, error: err instanceof Error ? err.message : String(err) },
        transfer: [],
      };
    }
    port.postMessage(reply.message, reply.transfer);
  });
}
