/** Registry aliases (spec §3.1). */
export const STAGES = ['champion', 'challenger', 'candidate'] as const;
export type Stage = (typeof STAGES)[number];

/** Stages a caller may ask the live path for (spec §4.8): the candidate is not served. */
const SERVABLE_STAGES = ['champion', 'challenger'] as const;
export type ServableStage = (typeof SERVABLE_STAGES)[number];

export function isStage(value: string): value is Stage {
  return (STAGES as readonly string[]).includes(value);
}

export function isServableStage(value: string): value is ServableStage {
  return (SERVABLE_STAGES as readonly string[]).includes(value);
}
