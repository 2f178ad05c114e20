// The domain: match, outcome, odds and stage types, the error catalogue, the clock and the object-store
// key layout. Only what other folders use is exported; add a name here when another folder needs it.
export { BUCKETS, type Bucket, KEYS, modelArtifactKey, ODDS_OBSERVATIONS, SERVED_LOG } from './buckets.js';
export { type Clock, replayClock, systemClock } from './clock.js';
export { ERROR_CATALOGUE, type ErrorCode, isMatchcastError, MatchcastError } from './errors.js';
export { FIELD_LIMITS } from './field-limits.js';
export { getOrSet } from './get-or-set.js';
export { DAY_MS, INSTANT_FORMAT, parseInstant, utcInstant } from './instant.js';
export {
  emptyOddsRecord,
  type Match,
  type MatchKey,
  type MatchStatus,
  ODDS_1X2_FIELDS,
  ODDS_GOALS_FIELDS,
  ODDS_PRICE_FIELDS,
  ODDS_TIME_FIELDS,
  type OddsRecord,
} from './match.js';
export { forkModule, siblingModule, startModuleThread } from './module-thread.js';
export {
  isOddsKind,
  isOddsMarket,
  MARKET_OUTCOMES,
  ODDS_KINDS,
  ODDS_MARKETS,
  type OddsKind,
  type OddsMarket,
  type OddsObservation,
  OPENING_LEAD_MS,
  RESULT_LAG_MS,
} from './odds.js';
export { ODDS_BOUNDS, oddsImplausibility } from './odds-bounds.js';
export { OddsTimeline } from './odds-timeline.js';
export {
  checkedProbabilities,
  OUTCOME_LABELS,
  type Outcome,
  outcomeFromScore,
  type Probabilities,
  predictedClass,
} from './outcome.js';
export { processAlive } from './process-alive.js';
export { rowShape } from './row-shape.js';
export { isServableStage, isStage, type ServableStage, STAGES, type Stage } from './stage.js';
export { withTimeout } from './with-timeout.js';
