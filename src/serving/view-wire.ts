import type { MessagePort } from 'node:worker_threads';
import type { EncodedBody } from './encoded-body.js';
import { JsonIndex } from './json-index.js';
import { describe } from './validate.js';
import { type BuildJob, type BuiltViews, buildViews } from './view-build.js';

/** One transferable ArrayBuffer per view: no copy, no per-match objects, no link to a replaced view. */
export interface Group {
  buffer: ArrayBuffer;
  /** Offset and length of each part, in the order they were added. */
  spans: number[];
}

/** What a body keeps beside its three parts (identity, empty when not kept; gzip; br). */
type BodyMeta = Pick<EncodedBody, 'size' | 'etags'> & { kept: boolean };

/** An index's parts are ids, starts, ends and slab; the predictions' bulk body follows them. */
export interface WireViews {
  verdicts: BuiltViews['verdicts'];
  predictions?: { group: Group; bulk: BodyMeta } | null;
  cards?: { group: Group; body: BodyMeta } | null;
  odds?: { group: Group; body: BodyMeta } | null;
  markets?: { group: Group } | null;
}

export type ToBuilder = { t: 'build'; id: number; job: BuildJob };
export type FromBuilder =
  | { t: 'built'; id: number; views: WireViews }
  | { t: 'failed'; id: number; error: string }
  | { t: 'init-error'; message: string };

interface Layout {
  parts: ArrayBufferView[];
  spans: number[];
  total: number;
}

/** Turns a view's laid-out parts into its buffer: a copy for the thread, a file region for the cache. */
type Place = (layout: Layout) => Group;

const NONE = new Uint8Array(0);
const indexParts = (x: JsonIndex) => [x.ids, x.starts, x.ends, x.slab];
const bodyParts = (b: EncodedBody) => [b.identity ?? NONE, b.gzip, b.br];
const meta = (b: EncodedBody): BodyMeta => ({ size: b.size, etags: b.etags, kept: b.identity !== null });

function group(parts: ArrayBufferView[], place: Place): Group {
  const spans: number[] = [];
  let total = 0;
  for (const p of parts) {
    total = (total + 7) & ~7;
    spans.push(total, p.byteLength);
    total += p.byteLength;
  }
  return place({ parts, spans, total });
}

/** Copies the parts into one new buffer, added to `transfer`. */
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

/** Describes the built views as groups of parts, each placed by `place`; null and undefined pass through. */
export function layoutViews(v: BuiltViews, place: Place): WireViews {
  const body = (b: EncodedBody | null | undefined) =>
    b && { group: group(bodyParts(b), place), body: meta(b) };
  const p = v.predictions;
  return {
    verdicts: v.verdicts,
    predictions: p && {
      group: group([...indexParts(p.records), ...bodyParts(p.bulk)], place),
      bulk: meta(p.bulk),
    },
    cards: body(v.cards),
    odds: body(v.odds),
    markets: v.markets && { group: group(indexParts(v.markets), place) },
  };
}

export function packViews(v: BuiltViews): { views: WireViews; transfer: ArrayBuffer[] } {
  const transfer: ArrayBuffer[] = [];
  return { views: layoutViews(v, copyInto(transfer)), transfer };
}

function bytes(g: Group, part: number): Buffer {
  return Buffer.from(g.buffer, g.spans[2 * part], g.spans[2 * part + 1]);
}

function body(g: Group, m: BodyMeta, first = 0): EncodedBody {
  return {
    identity: m.kept ? bytes(g, first) : null,
    size: m.size,
    gzip: bytes(g, first + 1),
    br: bytes(g, first + 2),
    etags: m.etags,
  };
}

function index(g: Group): JsonIndex {
  const n = g.spans[1] / 8;
  return new JsonIndex(
    new Float64Array(g.buffer, g.spans[0], n),
    new Uint32Array(g.buffer, g.spans[2], n),
    new Uint32Array(g.buffer, g.spans[4], n),
    bytes(g, 3),
  );
}

/** The views of a `built` message, as views into its buffers (no copy). */
export function unpackViews(w: WireViews): BuiltViews {
  const p = w.predictions;
  return {
    verdicts: w.verdicts,
    predictions: p && { records: index(p.group), bulk: body(p.group, p.bulk, 4) },
    cards: w.cards && body(w.cards.group, w.cards.body),
    odds: w.odds && body(w.odds.group, w.odds.body),
    markets: w.markets && index(w.markets.group),
  };
}

/** The builder thread's loop (nothing of a build is kept once posted); tests replace `build`. */
export function serveBuilds(
  port: MessagePort,
  build: (job: BuildJob) => Promise<BuiltViews> = buildViews,
): void {
  port.on('message', async (msg: ToBuilder) => {
    if (msg.t !== 'build') return;
    const transfer: ArrayBuffer[] = [];
    let reply: FromBuilder;
    try {
      reply = { t: 'built', id: msg.id, views: layoutViews(await build(msg.job), copyInto(transfer)) };
    } catch (err) {
      transfer.length = 0;
      reply = { t: 'failed', id: msg.id, error: describe(err) };
    }
    port.postMessage(reply, transfer);
  });
}
