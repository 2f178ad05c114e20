import { MatchcastError } from '../../domain/index.js';
import type { ParsedFile } from '../../ingest/index.js';

/** A parsed CSV body in one of `formats`, else the source is not what it was declared to be. */
export function expectFormat(parsed: ParsedFile, formats: readonly string[], kind: string): ParsedFile {
  if (parsed.format === null || !formats.includes(parsed.format)) {
    const why = parsed.skipped[0]?.reason ?? `layout ${parsed.format}`;
    throw new MatchcastError(
      'MC_ERR_SOURCE_LAYOUT_CHANGED',
      `${parsed.file}: not a ${kind} body (${formats.join(' or ')}): ${why}`,
    );
  }
  return parsed;
}
