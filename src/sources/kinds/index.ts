import type { SourceKind } from '../types.js';
import { fixturesCsv } from './fixtures-csv.js';
import { oddsApiJson } from './odds-api-json.js';
import { oddsCsv } from './odds-csv.js';
import { releaseCsv } from './release-csv.js';
import { resultsCsv } from './results-csv.js';

/** Every kind of source, by `--format` name. A new kind is one file and one line here. */
export const SOURCE_KINDS: readonly SourceKind[] = [
  resultsCsv,
  fixturesCsv,
  oddsCsv,
  oddsApiJson,
  releaseCsv,
];

export function sourceKind(name: string): SourceKind | undefined {
  return SOURCE_KINDS.find((k) => k.name === name);
}

/** The kind a URL most likely is when `--format` is not given. */
export function guessKind(url: string): SourceKind {
  const last = url.split(/[?#]/)[0].toLowerCase();
  if (last.endsWith('.json')) return oddsApiJson;
  if (/fixtures[^/]*$/.test(last)) return fixturesCsv;
  if (/odds[^/]*$/.test(last)) return oddsCsv;
  return resultsCsv;
}
