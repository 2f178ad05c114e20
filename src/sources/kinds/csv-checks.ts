import { MatchcastError } from '../../domain/index.js';
import { type ParsedFile, parseCsvText } from '../../ingest/index.js';
import type { SourceParseContext } from '../types.js';

/** The body read by the shared CSV parser; one of `formats`, else the source is not what it was declared to be. */
export function parseCsvAs(
  text: string,
  ctx: SourceParseContext,
  formats: readonly string[],
  kind: string,
): ParsedFile {
  const parsed = parseCsvText(text, ctx.file, { now: ctx.fetchedAt });
  if (parsed.format === null || !formats.includes(parsed.format)) {
    const why = parsed.skipped[0]?.reason ?? `layout ${parsed.format}`;
    throw new MatchcastError(
      'MC_ERR_SOURCE_LAYOUT_CHANGED',
      `${parsed.file}: not a ${kind} body (${formats.join(' or ')}): ${why}`,
    );
  }
  return parsed;
}
