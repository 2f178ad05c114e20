import { type Static, Type } from 'typebox';
import { DateTime, Literals, Nullable, Strict } from './common.js';

const Outcomes = (description: string) =>
  Strict({ home: Type.Number(), draw: Type.Number(), away: Type.Number() }, { description });

const GroupContribution = Strict({
  group: Type.String({
    description: 'feature group (src/features/groups), `other` for an input no group writes now',
  }),
  columns: Type.Array(Type.String(), {
    description: 'the model inputs of the group; `<name>_missing` is the 0/1 missing indicator of `<name>`',
  }),
  scores: Nullable(
    Outcomes('softmax: Σ coefficient × standardised value of the group in each outcome’s score'),
    'null for the ordered logit',
  ),
  latent: Nullable(
    Type.Number(),
    'ordered logit: Σ β × standardised value of the group in the latent score η; null for softmax',
  ),
});

/** `GET /predict/explain/{match_id}`: the parts add up to the probabilities (docs/api.md). */
export const Explanation = Strict({
  match_id: Type.Integer(),
  run_id: Nullable(Type.String(), 'the published run whose predictions file served the row'),
  model_stage: Literals(['champion', 'backtest', 'fallback'], {
    description:
      'the served row’s model: the champion, a walk-forward fold (match predicted before the champion’s cut-off) or the market-free fallback',
  }),
  model_run_id: Type.String({ description: 'the served row’s `model_run_id`' }),
  model_name: Type.String({ description: 'registry model name (the fallback’s ends in `-market-free`)' }),
  model_version: Nullable(Type.String(), 'registry version; null for a walk-forward fold'),
  training_cutoff: DateTime('the model saw only results known before this instant'),
  family: Type.String({ description: 'model family, e.g. `multinomial_logit`, `ordered_logit`' }),
  link: Literals(['softmax', 'ordered_logit'], {
    description:
      'softmax: score_k = baseline_k + offset_k + Σ groups.scores_k, p = softmax(score). ordered_logit: η = Σ groups.latent, P(away) = σ(c₁ − η), P(draw) = σ(c₂ − η) − σ(c₁ − η), P(home) = 1 − σ(c₂ − η)',
  }),
  baseline: Nullable(Outcomes('softmax: the intercepts'), 'null for the ordered logit'),
  offset: Nullable(
    Outcomes('the market log-odds added as a fixed offset (log p_home/p_away, log p_draw/p_away, 0)'),
    'null unless the model was fitted with the market offset',
  ),
  cut_points: Nullable(
    Strict({ c1: Type.Number(), c2: Type.Number() }),
    'ordered logit: the cut points (away | draw at c₁, draw | home at c₂); null for softmax',
  ),
  groups: Type.Array(GroupContribution, {
    description: 'one entry per feature group with an input, in group order',
  }),
  scores: Nullable(Outcomes('softmax: each outcome’s total score'), 'null for the ordered logit'),
  latent: Nullable(Type.Number(), 'ordered logit: the total latent score η; null for softmax'),
  probabilities: Outcomes('recomputed from the parts above'),
  served: Outcomes('the probabilities the predictions file serves'),
  max_abs_error: Type.Number({ description: 'largest |probabilities − served|' }),
  reproduces_served: Type.Boolean({
    description:
      'max_abs_error ≤ 1e-9; false when the row was re-predicted from features newer than the run’s features file',
  }),
  market: Strict(
    {
      odds_observed_at: Nullable(DateTime(), 'the 1X2 observation behind the market features; null: none'),
      prices: Nullable(Outcomes('the decimal prices of that observation'), 'null when not on record'),
      fair: Nullable(
        Outcomes('the same de-margined (power method), as the features use it'),
        'null when no prices',
      ),
    },
    { description: 'the market’s view the prediction used' },
  ),
});
export type Explanation = Static<typeof Explanation>;

export const EXAMPLE_EXPLANATION: Explanation = {
  match_id: 1_004_321,
  run_id: '2f0c1d5e9a7b4c3d8e6f1a2b3c4d5e6f',
  model_stage: 'champion',
  model_run_id: '9a1b2c3d4e5f60718293a4b5c6d7e8f9',
  model_name: 'matchcast',
  model_version: '3',
  training_cutoff: '2024-07-01T00:00:00.000Z',
  family: 'multinomial_logit',
  link: 'softmax',
  baseline: { home: 0.21, draw: -0.02, away: -0.19 },
  offset: null,
  cut_points: null,
  groups: [
    {
      group: 'elo',
      columns: ['elo_home', 'elo_away', 'elo_expected_home'],
      scores: { home: 0.18, draw: -0.01, away: -0.17 },
      latent: null,
    },
    {
      group: 'market',
      columns: ['mkt_home', 'mkt_draw', 'mkt_away'],
      scores: { home: 0.35, draw: -0.05, away: -0.3 },
      latent: null,
    },
  ],
  scores: { home: 0.74, draw: -0.08, away: -0.66 },
  latent: null,
  probabilities: { home: 0.5928, draw: 0.2611, away: 0.1462 },
  served: { home: 0.5928, draw: 0.2611, away: 0.1462 },
  max_abs_error: 0,
  reproduces_served: true,
  market: {
    odds_observed_at: '2024-08-10T14:00:00.000Z',
    prices: { home: 1.75, draw: 3.9, away: 4.6 },
    fair: { home: 0.5561, draw: 0.2431, away: 0.2008 },
  },
};
