/**
 * In-memory views of the artifacts the precomputed routes serve (ARCHITECTURE §5). The serving
 * helper owns the concrete shape; the API only needs these members.
 */
export interface ServingViews {
  /** Loads every view once, then polls the store for changes. */
  start(): Promise<void>;
  close(): Promise<void>;
}
