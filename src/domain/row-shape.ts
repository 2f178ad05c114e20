/**
 * A maker of rows that have every one of `columns`, each null until filled in. A row given ~60
 * computed keys one at a time falls into V8's dictionary mode (~4 KB a row); a copy of one complete
 * object keeps the compact shape (~1.3 KB), which is what bounds the memory of a run over many rows.
 */
export function rowShape(columns: readonly string[]): () => Record<string, unknown> {
  const template: Readonly<Record<string, unknown>> = Object.fromEntries(columns.map((c) => [c, null]));
  return () => ({ ...template });
}
