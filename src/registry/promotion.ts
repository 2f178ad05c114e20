import type { PromotionStatus } from '../schemas/index.js';

/** How the new version compares with the champion on the same validation matches. */
type ChampionVerdict = 'no-champion' | 'beats' | 'ties' | 'worse' | 'not-finite';
/** How the new version compares with the de-margined opening line on the same validation matches. */
type OpeningVerdict = 'beats' | 'worse' | 'no-line' | 'not-checked';

/** The outcome of the automated promotion rule (spec §3.1). */
export interface PromotionDecision {
  promote: boolean;
  /** One sentence a human can read in the stage output. */
  reason: string;
  champion: ChampionVerdict;
  opening: OpeningVerdict;
}

const fmt = (x: number) => x.toFixed(5);

/**
 * The promotion guard: on the same validation matches, the new version must tie the champion within
 * `tolerance` and beat the de-margined opening line by more than `openingMargin` (null: `no-line`, passes).
 */
export function decidePromotion(
  newLogLoss: number,
  championLogLoss: number | null,
  tolerance: number,
  opening?: LineCheck | null,
  openingMargin = 0,
): PromotionDecision {
  if (!Number.isFinite(newLogLoss)) {
    return {
      promote: false,
      reason: `new version has no finite validation log_loss (${newLogLoss})`,
      champion: 'not-finite',
      opening: 'not-checked',
    };
  }
  let champion: ChampionVerdict = 'no-champion';
  let championText = 'no champion yet';
  if (championLogLoss !== null) {
    const limit = championLogLoss + tolerance;
    // The epsilon keeps a value exactly at the limit inside it despite floating-point sums.
    if (newLogLoss < championLogLoss) champion = 'beats';
    else if (newLogLoss <= limit + 1e-12) champion = 'ties';
    else champion = 'worse';
    championText =
      champion === 'worse'
        ? `log_loss ${fmt(newLogLoss)} > champion ${fmt(championLogLoss)} + tolerance ${tolerance} = ${fmt(limit)}`
        : `log_loss ${fmt(newLogLoss)} ${champion} champion ${fmt(championLogLoss)} (limit ${fmt(limit)})`;
  }
  let openingVerdict: OpeningVerdict = 'not-checked';
  let openingText = '';
  if (opening === null || (opening && opening.n === 0)) {
    openingVerdict = 'no-line';
    openingText = 'no opening odds on the validation window: no line to beat';
  } else if (opening) {
    const bar = opening.line_log_loss - openingMargin;
    openingVerdict = opening.model_log_loss < bar - 1e-12 ? 'beats' : 'worse';
    openingText = `on ${opening.n} matches with opening odds ${fmt(opening.model_log_loss)} ${openingVerdict === 'beats' ? '<' : '>='} opening line ${fmt(opening.line_log_loss)}${openingMargin ? ` − margin ${openingMargin}` : ''}`;
  }
  const promote = champion !== 'worse' && openingVerdict !== 'worse';
  return {
    promote,
    reason: [championText, openingText].filter(Boolean).join('; '),
    champion,
    opening: openingVerdict,
  };
}

/** The opening (or closing) line check of a version from its registry metrics; null without that line. */
export function lineCheckOf(metrics: Record<string, number>, line: 'open' | 'close'): LineCheck | null {
  const n = metrics[`market_${line}_n`];
  const model = metrics[`model_on_${line}_log_loss`];
  const market = metrics[`market_${line}_log_loss`];
  if (!n || !Number.isFinite(model) || !Number.isFinite(market)) return null;
  return { n, model_log_loss: model, line_log_loss: market };
}

/** Everything the promotion guard looked at for one version (`registry promote` and the UI show it). */
export type PromotionComparison = NonNullable<PromotionStatus['comparison']> & {
  champion_verdict: ChampionVerdict;
  opening_verdict: OpeningVerdict;
};

/** A market line on the validation matches that have it, beside the new version on those matches. */
export type LineCheck = NonNullable<PromotionComparison['opening']>;
