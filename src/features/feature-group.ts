import type { Match, OddsRecord, OddsTimeline } from '../domain/index.js';
import type { DemarginMethod } from './market.js';
import { DEFAULT_MARKET_RATING, type MarketRatingParams } from './market-ratings.js';
import { DEFAULT_ELO, DEFAULT_PI, type EloParams, type PiParams } from './ratings.js';

/** The options of `buildFeatureRows` with every default filled in: what the feature groups read. */
export interface FeatureSettings {
  /** Elo parameters. Default {@link DEFAULT_ELO}. */
  elo: EloParams;
  /** Pi-rating parameters. Default {@link DEFAULT_PI}. */
  pi: PiParams;
  /** Matches in the form window. Default `6`. */
  formWindow: number;
  /** Rest days are capped here (winter breaks say nothing about fatigue). Default `21`. */
  restCapDays: number;
  /** Number of lowest-rated teams whose mean is a promoted team's prior. Default `3`. */
  promotedPriorOf: number;
  /** De-margining method for every odds column. Default `power`. */
  demargin: DemarginMethod;
  /** Market-implied ratings from earlier matches' closing odds. Default {@link DEFAULT_MARKET_RATING}. */
  marketRating: MarketRatingParams;
  /** When each match is predicted: its market columns read observations made by then. Default `'early'`. */
  horizon: FeatureHorizon;
}

/** Options of `buildFeatureRows`; every field has a default. */
export interface FeatureOptions extends Partial<Omit<FeatureSettings, 'elo' | 'pi' | 'marketRating'>> {
  elo?: Partial<EloParams>;
  pi?: Partial<PiParams>;
  marketRating?: Partial<MarketRatingParams>;
  /** The odds observations with their times. Default: the `odds` records' 1X2 (`OddsTimeline.fromRecords`). */
  observations?: OddsTimeline;
}

/** Prediction time: `'early'` kick-off − 48 h (≥ `asOf`), `'kickoff'`, or `{ at }` min(at, kick-off). */
export type FeatureHorizon = 'early' | 'kickoff' | { at: Date };

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
  record: OddsRecord | undefined;
  open: [number, number, number] | null;
  close: [number, number, number] | null;
  /** The source's pre-match odds (closing when known, else opening). */
  pre: [number, number, number] | null;
  predictionTime: number;
  /** The latest 1X2 observation made by the prediction time (the model's market view), its overround and time. */
  market: [number, number, number] | null;
  marketOverround: number | null;
  marketObservedAt: Date | null;
  /** P(over 2.5) and P(both score) of the latest O/U 2.5 and BTTS observations by the prediction time. */
  over25: number | null;
  btts: number | null;
}

/** What a group sees when it computes one match's columns (all of it known before kick-off). */
export interface MatchContext<Team, Region> {
  match: Match;
  /** Kick-off, ms. */
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

/** What `update` sees once a match's result is known; `row` is then the match's complete feature row. */
export interface ResultContext<Team, Region> extends MatchContext<Team, Region> {
  result: { home: number; away: number };
}

/** One group of feature columns and the team (and region) state behind them. Add one in `groups/`. */
export interface FeatureGroup<Col extends string = string, Team = unknown, Region = unknown> {
  /** Stable snake_case name (explanations group a model's inputs by it). */
  readonly name: string;
  readonly columns: readonly Col[];
  newTeam(s: FeatureSettings): Team;
  newRegion?(s: FeatureSettings): Region;
  /** A promoted or new team enters a season: `prior(pick)`: the league-low prior; `fresh`: never played. */

  promote?(team: Team, prior: (pick: (t: Team) => number) => number | null, fresh: boolean): void;
  /** Any team's first fixture of a new season. */
  newSeason?(team: Team): void;
  values(ctx: MatchContext<Team, Region>, out: Record<Col, number | null>): void;
  /** Folds a played match in once its result is known, in the order results become known. */
  update?(ctx: ResultContext<Team, Region>): void;
  /** Folds in a match on the fixture list (known in advance) right after its kick-off's rows. */
  scheduled?(ctx: MatchContext<Team, Region>): void;
}

/** Declares a group with its column names as literal types (`FeatureName` derives from them). */
export function featureGroup<const Col extends string, Team, Region = undefined>(
  g: FeatureGroup<Col, Team, Region>,
): FeatureGroup<Col, Team, Region> {
  return g;
}
