import { readParquet } from '../storage/index.js';
import { BodyEncoder } from './body-encoder.js';
import { buildCard } from './cards.js';
import type { EncodedBody } from './encoded-body.js';
import type { JsonIndex } from './json-index.js';
import { readMarketsFile } from './markets-view.js';
import { OddsTable } from './odds.js';
import { buildPredictionsView, byKickOff, type PredictionsView, parsePredictionRows } from './predictions.js';
import { describe } from './validate.js';

export type BuiltArtifact = 'predictions' | 'odds' | 'markets';

/** One artifact of a build: the bytes serving now (null: none) and the published run's change to them. */
export interface ArtifactInput {
  current: Uint8Array | null;
  change: 'same' | 'new' | 'removed';
  next?: Uint8Array;
}

export interface BuildJob {
  predictions: ArtifactInput;
  odds: ArtifactInput;
  markets: ArtifactInput;
  bookmakerUrlTemplate: string;
  identityMaxBytes?: number;
}

/** How a `new` candidate fared: valid (with its row count) or rejected (why); null without a candidate. */
export type Verdict = { ok: true; rows: number } | { ok: false; error: string } | null;

/** What a build produced: `undefined` = unchanged (keeps serving); null = no file (503, `[]`, no markets). */
export interface BuiltViews {
  verdicts: Record<BuiltArtifact, Verdict>;
  predictions?: PredictionsView | null;
  cards?: EncodedBody | null;
  odds?: EncodedBody | null;
  markets?: JsonIndex | null;
}

interface Resolved<T> {
  changed: boolean;
  verdict: Verdict;
  /** The data to build from (parsed on first use): the valid candidate, else the current copy. */
  get(): Promise<T | null>;
}

/** Validates a candidate; a rejected one leaves the current copy as the one to build from. */
async function resolve<T>(
  input: ArtifactInput,
  parse: (bytes: Uint8Array) => Promise<T>,
  rows: (data: T) => number,
): Promise<Resolved<T>> {
  let verdict: Verdict = null;
  if (input.change === 'new' && input.next) {
    try {
      const data = await parse(input.next);
      return { changed: true, verdict: { ok: true, rows: rows(data) }, get: async () => data };
    } catch (err) {
      verdict = { ok: false, error: describe(err) };
    }
  }
  if (input.change === 'removed') return { changed: true, verdict, get: async () => null };
  const { current } = input;
  let parsed: Promise<T | null> | undefined;
  return {
    changed: false,
    verdict,
    get: () => (parsed ??= current ? parse(current) : Promise.resolve(null)),
  };
}

/** Validates the candidates, rebuilds each changed view and the cards (their join); on the builder thread. */
export async function buildViews(job: BuildJob): Promise<BuiltViews> {
  const parsePredictions = async (b: Uint8Array) => parsePredictionRows(await readParquet(b)).sort(byKickOff);
  const pred = await resolve(job.predictions, parsePredictions, (r) => r.length);
  const odds = await resolve(job.odds, OddsTable.fromParquet, (t) => t.length);
  const markets = await resolve(job.markets, readMarketsFile, (t) => t.json.count);
  const out: BuiltViews = {
    verdicts: { predictions: pred.verdict, odds: odds.verdict, markets: markets.verdict },
  };
  if (!pred.changed && !odds.changed && !markets.changed) return out;
  const predRows = await pred.get();
  const oddsRows = predRows || odds.changed ? await odds.get() : null;
  const table = predRows || markets.changed ? await markets.get() : null;
  if (pred.changed)
    out.predictions = predRows ? await buildPredictionsView(predRows, job.identityMaxBytes) : null;
  if (odds.changed)
    out.odds = oddsRows ? await BodyEncoder.array(oddsRows.rows(), (r) => r, job.identityMaxBytes) : null;
  if (markets.changed) out.markets = table?.json ?? null;
  // The cards, in kick-off order: only the predicted matches' odds rows are made, one at a time.
  out.cards = predRows
    ? await BodyEncoder.array(
        predRows,
        (p) =>
          buildCard(p, oddsRows?.get(p.match_id), job.bookmakerUrlTemplate, table?.summaries.get(p.match_id)),
        job.identityMaxBytes,
      )
    : null;
  return out;
}
