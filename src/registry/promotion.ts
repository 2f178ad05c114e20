/** The outcome of the automated promotion rule (spec §3.1). */
export interface PromotionDecision {
  /** True when the new version should get the `candidate` alias. */
  promote: boolean;
  /** One sentence a human can read in the stage output. */
  reason: string;
}

/**
 * The promotion rule: a new version becomes `candidate` when its validation log loss is at most the
 * champion's plus `tolerance`, both measured on the same validation window, or when there is no
 * champion at all. Pure; the pipeline supplies the two numbers.
 */
export function decidePromotion(
  newLogLoss: number,
  championLogLoss: number | null,
  tolerance: number,
): PromotionDecision {
  if (!Number.isFinite(newLogLoss)) {
    return { promote: false, reason: `new version has no finite validation log_loss (${newLogLoss})` };
  }
  if (championLogLoss === null) {
    return { promote: true, reason: 'no champion yet' };
  }
  const limit = championLogLoss + tolerance;
  const fmt = (x: number) => x.toFixed(5);
  // The epsilon keeps a value exactly at the limit inside it despite floating-point sums.
  if (newLogLoss <= limit + 1e-12) {
    return {
      promote: true,
      reason: `log_loss ${fmt(newLogLoss)} <= champion ${fmt(championLogLoss)} + tolerance ${tolerance} = ${fmt(limit)}`,
    };
  }
  return {
    promote: false,
    reason: `log_loss ${fmt(newLogLoss)} > champion ${fmt(championLogLoss)} + tolerance ${tolerance} = ${fmt(limit)}`,
  };
}
