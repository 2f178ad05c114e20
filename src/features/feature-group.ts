import type { Match, OddsRecord, OddsTimeline } from '../domain/index.js';
import type { DemarginMethod } from './market.js';
import { DEFAULT_MARKET_RATING, type MarketRatingParams } from './market-ratings.js';
import { DEFAULT_ELO, DEFAULT_PI, type EloParams, type PiParams } from './ratings.js';

/** Options of `buildFeatureRows`; every field has a default. */
export interface FeatureOptions {
  /** Elo parameters. Default {@link DEFAULT_ELO}. */
  elo?: Partial<EloParams>;
  /** Pi-rating parameters. Default {@link DEFAULT_PI}. */
  pi?: Partial<PiParams>;
  /** Matches in the form window. Default `6`. */
  formWindow?: number;
  /** Rest days are capped here (winter breaks say nothing about fatigue). Default `21`. */
  restCapDays?: number;
  /** Number of lowest-rated teams whose mean is a promoted team's prior. Default `3`. */
  promotedPriorOf?: number;
  /** De-margining method for every odds column. Default `power`. */
  demargin?: DemarginMethod;
  /** Market-implied ratings from earlier matches' closing odds. Default {@link DEFAULT_MARKET_RATING}. */
  marketRating?: Partial<MarketRatingParams>;
  /**
   * When each match is predicted, i.e. which odds observations its market columns may use (the latest
   * made at or before that time, never a later one). Default `'early'`. See {@link FeatureHorizon}.
   */
  horizon?: FeatureHorizon;
  /**
   * The odds observations (1X2, O/U 2.5, BTTS) with their times. Default: built from the `odds` records
   * (opening at kick-off − OPENING_LEAD_MS, closing at kick-off; 1X2 only).
   */
  observations?: OddsTimeline;
}

/**
 * The prediction time of each match:
 * - `'early'`: kick-off − OPENING_LEAD_MS (the opening line); a fixture already inside that window at
 *   `asOf` is predicted at `asOf` (what is known now). Today's behaviour: the opening odds.
 * - `'kickoff'`: at kick-off, i.e. the latest observation before the match (the closing line).
 * - `{ at }`: an explicit instant (a live fixture, a replay clock): min(at, kick-off) for every match.
 */
export type FeatureHorizon = 'early' | 'kickoff' | { at: Date };

/** {@link FeatureOptions} with every default filled in: what the feature groups read. */
export interface FeatureSettings {
  elo: EloParams;
  pi: PiParams;
  formWindow: number;
  restCapDays: number;
  promotedPriorOf: number;
  demargin: DemarginMethod;
  marketRating: MarketRatingParams;
  horizon: FeatureHorizon;
}

export function resolveFeatureOptions(o: FeatureOptions = {}): FeatureSettings {
  return {
    elo: { ...DEFAULT_ELO, ...o.elo },
    pi: { ...DEFAULT_PI, ...o.pi },
    formWindow: o.formWindow ?? 6,
    restCapDays: o.restCapDays ?? 21,
    promotedPriorOf: o.promotedPriorOf ?? 3,
    demargin: o.demargin ?? 'power',
    marketRating: { ...DEFAULT_MARKET_RATING, ...o.marketRating },
    horizon: o.horizon ?? 'early',
  };
}

/** De-margined (home, draw, away) probabilities of one match's odds; null where the source has none. */
export interface MatchPrices {
  /** The match's raw odds record, if any. */
  record: OddsRecord | undefined;
  open: [number, number, number] | null;
  close: [number, number, number] | null;
  /** The source's pre-match odds (closing when known, else opening). */
  pre: [number, number, number] | null;
  /** The match's prediction time (ms since the epoch), from the horizon. */
  predictionTime: number;
  /** De-margined 1X2 of the latest observation made at or before the prediction time (the model's market view). */
  market: [number, number, number] | null;
  /** Overround of that observation. */
  marketOverround: number | null;
  /** When that observation was made. */
  marketObservedAt: Date | null;
  /** De-margined P(over 2.5 goals) of the latest O/U 2.5 observation at or before the prediction time. */
  over25: number | null;
  /** De-margined P(both teams score) of the latest BTTS observation at or before the prediction time. */
  btts: number | null;
}

/** What a group sees when it computes one match's columns (all of it known before kick-off). */
interface MatchContext<Team, Region> {
  match: Match;
  /** Kick-off, ms since the epoch. */
  t: number;
  home: Team;
  away: Team;
  region: Region;
  /** The team entered this season from outside the region's previous season (promoted or new). */
  homeNew: boolean;
  awayNew: boolean;
  prices: MatchPrices;
  settings: FeatureSettings;
  /** Columns of the groups listed before this one (read-only). */
  row: Readonly<Record<string, number | null>>;
}

/**
 * What a group sees after a match: in `update`, once its result is known (`result` set); in
 * `scheduled`, right after the rows of its kick-off (`result` null for a fixture not (yet) played).
 */
export interface ResultContext<Team, Region> extends MatchContext<Team, Region> {
  /** The score once played. `row` here is the match's complete feature row (every group's columns). */
  result: { home: number; away: number } | null;
}

/**
 * One group of feature columns and the per-team (and per-region) state they are computed from.
 * `values` reads only state built from information that existed at the row's prediction time:
 * `update` folds a played match in once its result is known (kick-off + RESULT_LAG_MS, so a row
 * predicted 48 h ahead never sees a match kicked off in between), `scheduled` folds in what the
 * fixture list says (known in advance) after every match of the same kick-off has its row. Add a group:
 * one file in `groups/` and one line in `groups/index.ts` (its columns join `FEATURE_NAMES` in list order).
 */
export interface FeatureGroup<Col extends string = string, Team = unknown, Region = unknown> {
  /** Stable name (snake_case), e.g. how explanations group a model's inputs. */
  readonly name: string;
  /** Column names this group writes, in file order. */
  readonly columns: readonly Col[];
  /** State of a team at its first fixture. */
  newTeam(s: FeatureSettings): Team;
  /** State of a region at its first match (omit when the group keeps none). */
  newRegion?(s: FeatureSettings): Region;
  /**
   * A promoted or new team enters a season: start it at the league-low prior. `prior(pick)` is the
   * mean of the `promotedPriorOf` lowest `pick` values among the region's rated teams (null when too
   * few); `fresh` = the team has never played.
   */
  promote?(team: Team, prior: (pick: (t: Team) => number) => number | null, fresh: boolean): void;
  /** Any team's first fixture of a new season. */
  newSeason?(team: Team): void;
  /** Writes this group's columns of one match into `out`. */
  values(ctx: MatchContext<Team, Region>, out: Record<Col, number | null>): void;
  /**
   * Folds a played match into the state once its result (and closing price) is known, in the order
   * results become known; `result` is never null here. See {@link ResultContext}.
   */
  update?(ctx: ResultContext<Team, Region>): void;
  /** Folds a match on the schedule (played or still to come) in right after its kick-off's rows. */
  scheduled?(ctx: ResultContext<Team, Region>): void;
}

/** Declares a group with its column names as literal types (so `FeatureName` derives from the list). */
export function featureGroup<const Col extends string, Team, Region = undefined>(
  g: FeatureGroup<Col, Team, Region>,
): FeatureGroup<Col, Team, Region> {
  return g;
}
