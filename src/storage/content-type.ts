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
  const base = key.slice(key.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  if (dot <= 0) return 'application/octet-stream';
  return TYPES[base.slice(dot).toLowerCase()] ?? 'application/octet-stream';
}
