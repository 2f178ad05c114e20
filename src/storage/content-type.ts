import path from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.json': 'application/json',
  '.csv': 'text/csv; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.parquet': 'application/octet-stream',
};

/** The content type a key's extension implies; `application/octet-stream` when unknown. */
export function contentTypeForKey(key: string): string {
  return TYPES[path.posix.extname(key).toLowerCase()] ?? 'application/octet-stream';
}
