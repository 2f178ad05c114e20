import type { Config } from '../config.js';
import type { Database } from '../db/index.js';
import type { Logger } from '../logger.js';
import { type RepredictCache, repredictMatches } from '../pipeline/index.js';
import { createRegistry, type ModelRegistry } from '../registry/index.js';
import type { SourceDeps } from '../sources/index.js';
import type { ObjectStore } from '../storage/index.js';
import { INGEST_REPREDICT_MAX } from './ingest.js';

/**
 * The `afterIngest` of a poll: the changed matches are re-predicted and published as an incremental
 * run, as `matchcast ingest` does; `refreshed` runs after a publish (the server swaps the run in).
 */
export function repredictAfterPoll(parts: {
  config: Config;
  db: Database;
  store: ObjectStore;
  log: Logger;
  registry?: ModelRegistry;
  cache?: RepredictCache;
  refreshed?: () => Promise<void>;
}): NonNullable<SourceDeps['afterIngest']> {
  const cache = parts.cache ?? {};
  return async (ids, asOf) => {
    if (ids.length > INGEST_REPREDICT_MAX)
      return `${ids.length} matches changed (more than ${INGEST_REPREDICT_MAX}): run \`matchcast pipeline run\``;
    const registry = parts.registry ?? createRegistry({ db: parts.db, store: parts.store }, parts.config);
    const re = await repredictMatches(
      { config: parts.config, db: parts.db, store: parts.store, registry, log: parts.log },
      ids,
      { asOf, cache, actor: 'sources' },
    );
    if (re.published) await parts.refreshed?.();
    return re.published
      ? `${re.repredicted} re-predicted, ${re.updated} updated; run ${re.run_id} published`
      : `not refreshed (${re.reason ?? 'nothing changed'})`;
  };
}
