import { MatchcastError } from '../../domain/index.js';
import type { GoalsFamily, ModelFamily } from '../family.js';
import { dixonColesMarket } from './dixon-coles-market.js';
import { multinomialLogit } from './multinomial-logit.js';
import { orderedLogit } from './ordered-logit.js';

/**
 * Every model family, of every kind: the 1X2 families (champion's first) and the goals families
 * (default first). Add a family: one file beside this one and one line here; its `kind` puts it in
 * `MODEL_FAMILIES` (1X2) or `GOALS_FAMILIES`.
 */
export const FAMILIES = [multinomialLogit, orderedLogit, dixonColesMarket] as const;

type AnyFamily = (typeof FAMILIES)[number];
type OfKind<K extends string> = Extract<AnyFamily, { kind: K }>;

/** Names of the 1X2 families (stored in artifacts and `params.family`). */
export type ModelFamilyName = OfKind<'1x2'>['name'];
/** Names of the goals families (stored in goals artifacts and `params.family`). */
export type GoalsFamilyName = OfKind<'goals'>['name'];

const ofKind = <K extends AnyFamily['kind']>(kind: K): OfKind<K>[] =>
  FAMILIES.filter((f): f is OfKind<K> => f.kind === kind);

/** The 1X2 families in list order. */
export const MODEL_FAMILIES: readonly OfKind<'1x2'>[] = ofKind('1x2');
/** The goals families in list order. */
export const GOALS_FAMILIES: readonly OfKind<'goals'>[] = ofKind('goals');

/** The default 1X2 family (the champion's). */
export const DEFAULT_FAMILY: ModelFamilyName = MODEL_FAMILIES[0].name;
/** The default goals family. */
export const DEFAULT_GOALS_FAMILY: GoalsFamilyName = GOALS_FAMILIES[0].name;

/** 1X2 names in list order, e.g. for CLI help and validation. */
export const MODEL_FAMILY_NAMES: readonly ModelFamilyName[] = MODEL_FAMILIES.map((f) => f.name);

export function isModelFamilyName(name: unknown): name is ModelFamilyName {
  return MODEL_FAMILY_NAMES.includes(name as ModelFamilyName);
}

function lookup(kind: AnyFamily['kind'], name: unknown): AnyFamily {
  const f = FAMILIES.find((x) => x.name === name);
  if (!f) throw new MatchcastError('MC_ERR_MODEL_UNAVAILABLE', `unknown model family ${String(name)}`);
  if (f.kind !== kind) {
    throw new MatchcastError(
      'MC_ERR_MODEL_UNAVAILABLE',
      `model family ${f.name} is a ${f.kind} family, not a ${kind} one`,
    );
  }
  return f;
}

/** The 1X2 family called `name`; throws `MC_ERR_MODEL_UNAVAILABLE` for an unknown one (e.g. an artifact from a newer build) or a goals family. */
export function modelFamily(name: unknown): ModelFamily {
  return lookup('1x2', name) as unknown as ModelFamily;
}

/** The goals family called `name`; throws `MC_ERR_MODEL_UNAVAILABLE` for an unknown one or a 1X2 family. */
export function goalsFamily(name: unknown): GoalsFamily {
  return lookup('goals', name) as unknown as GoalsFamily;
}
