import { MatchcastError } from '../../domain/index.js';
import type { GoalsFamily, ModelFamily } from '../family.js';
import { dixonColesMarket } from './dixon-coles-market.js';
import { multinomialLogit } from './multinomial-logit.js';
import { orderedLogit } from './ordered-logit.js';

/** Every model family; the first of each kind is its default. Add a family: one file and one line here. */
export const FAMILIES = [multinomialLogit, orderedLogit, dixonColesMarket] as const;

type AnyFamily = (typeof FAMILIES)[number];
type OfKind<K extends string> = Extract<AnyFamily, { kind: K }>;

export type ModelFamilyName = OfKind<'1x2'>['name'];
export type GoalsFamilyName = OfKind<'goals'>['name'];

const ofKind = <K extends AnyFamily['kind']>(kind: K): OfKind<K>[] =>
  FAMILIES.filter((f): f is OfKind<K> => f.kind === kind);

export const MODEL_FAMILIES: readonly OfKind<'1x2'>[] = ofKind('1x2');
export const GOALS_FAMILIES: readonly OfKind<'goals'>[] = ofKind('goals');

/** The champion's family. */
export const DEFAULT_FAMILY: ModelFamilyName = MODEL_FAMILIES[0].name;
export const DEFAULT_GOALS_FAMILY: GoalsFamilyName = GOALS_FAMILIES[0].name;

export const MODEL_FAMILY_NAMES: readonly ModelFamilyName[] = MODEL_FAMILIES.map((f) => f.name);

export function isModelFamilyName(name: unknown): name is ModelFamilyName {
  return MODEL_FAMILY_NAMES.includes(name as ModelFamilyName);
}

function lookup(kind: AnyFamily['kind'], name: unknown): AnyFamily {
  const f = FAMILIES.find((x) => x.name === name);
  if (!f) throw new MatchcastError('MC_ERR_MODEL_UNAVAILABLE', `unknown model family ${String(name)}`);
  if (f.kind !== kind)
    throw new MatchcastError(
      'MC_ERR_MODEL_UNAVAILABLE',
      `model family ${f.name} is a ${f.kind} family, not a ${kind} one`,
    );
  return f;
}

/** Throws `MC_ERR_MODEL_UNAVAILABLE` for an unknown family (an artifact of a newer build) or a goals one. */
export function modelFamily(name: unknown): ModelFamily {
  return lookup('1x2', name) as unknown as ModelFamily;
}

/** Throws `MC_ERR_MODEL_UNAVAILABLE` for an unknown family or a 1X2 one. */
export function goalsFamily(name: unknown): GoalsFamily {
  return lookup('goals', name) as unknown as GoalsFamily;
}
