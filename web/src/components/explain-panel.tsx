import { Component } from 'preact';
import { Api, describeError, getStoredKey } from '../lib/api.js';
import { pct } from '../lib/cards.js';
import { formatOdd, shortRunId } from '../lib/format.js';
import type { Explanation } from '../lib/types.js';

type State =
  | { status: 'closed' }
  | { status: 'loading' }
  | { status: 'error'; message: string }
  | { status: 'done'; ex: Explanation };

interface Props {
  matchId: number;
}

type Outcomes = { home: number; draw: number; away: number };

// Its own client: the panel loads on demand and a 401 surfaces as its error text.
const api = new Api(getStoredKey, () => {});

const W = 160;
const BAR = 5;
const SIDES = ['home', 'draw', 'away'] as const;

const GROUP_LABELS: Record<string, string> = {
  elo: 'Elo ratings',
  pi: 'Pi ratings',
  form: 'Recent form',
  rest: 'Rest days',
  season: 'Season',
  market: 'Market (this match)',
  market_rating: 'Market ratings',
  goal_rating: 'Goal ratings',
  baseline_odds: 'Baseline odds',
  goals_market: 'Goals market',
  other: 'Other inputs',
};

const signed = (v: number) => `${v >= 0 ? '+' : '−'}${Math.abs(v).toFixed(2)}`;

interface Part {
  key: string;
  label: string;
  title?: string;
  /** Softmax: one value per outcome; ordered logit: one latent value. */
  values: number[];
}

function partsOf(ex: Explanation): Part[] {
  const out: Part[] = [];
  const three = (o: Outcomes) => SIDES.map((s) => o[s]);
  if (ex.baseline)
    out.push({ key: 'baseline', label: 'Baseline', title: 'intercepts', values: three(ex.baseline) });
  if (ex.offset)
    out.push({ key: 'offset', label: 'Market offset', title: 'market log-odds', values: three(ex.offset) });
  for (const g of ex.groups) {
    const values = g.scores ? three(g.scores) : [g.latent ?? 0];
    out.push({ key: g.group, label: GROUP_LABELS[g.group] ?? g.group, title: g.columns.join(', '), values });
  }
  return out;
}

/** One row's bars, diverging from the zero line: three (home, draw, away) or one (latent score). */
function Bars({ values, scale }: { values: number[]; scale: number }) {
  const zero = W / 2;
  const h = values.length * (BAR + 1) + 1;
  return (
    <svg
      viewBox={`0 0 ${W} ${h}`}
      width="100%"
      height={h}
      preserveAspectRatio="none"
      aria-hidden="true"
      focusable="false"
    >
      {values.map((v, i) => {
        const w = (Math.abs(v) / scale) * zero;
        return (
          <rect
            key={i}
            class={values.length === 3 ? `xbar s${i}` : v >= 0 ? 'xbar s0' : 'xbar s2'}
            x={v >= 0 ? zero : zero - w}
            y={1 + i * (BAR + 1)}
            width={Math.max(0.5, w)}
            height={BAR}
          />
        );
      })}
      <line class="zero" x1={zero} x2={zero} y1={0} y2={h} />
    </svg>
  );
}

function modelLine(ex: Explanation): string {
  const who =
    ex.model_stage === 'backtest'
      ? `walk-forward fold ${shortRunId(ex.model_run_id)}`
      : `${ex.model_stage === 'fallback' ? 'market-free fallback' : 'champion'} v${ex.model_version ?? '?'}`;
  return `${who} (${ex.family}), trained on results before ${ex.training_cutoff.slice(0, 10)}`;
}

function ExplainChart({ ex }: { ex: Explanation }) {
  const parts = partsOf(ex);
  const softmax = ex.link === 'softmax';
  const scale = Math.max(1e-9, ...parts.flatMap((p) => p.values.map(Math.abs)));
  const p = ex.probabilities;
  const m = ex.market;
  return (
    <div class="explain-out" data-testid="explain-panel">
      <p class="meta" data-field="explain-model">
        {modelLine(ex)}
      </p>
      <p class="note">
        {softmax
          ? 'Each part pushes the score of home (1), draw (X) and away (2); the probabilities are the softmax of the summed scores.'
          : 'Each part moves one latent score η (right: towards a home win); the cut points turn η into the probabilities.'}
      </p>
      <table class="explain" data-link={ex.link}>
        <caption class="sr-only">Contribution of each feature group to the prediction</caption>
        <thead>
          <tr>
            <th scope="col">Part</th>
            <th scope="col" class="bar-col">
              Push
            </th>
            {softmax ? (
              SIDES.map((s, i) => (
                <th scope="col" key={s}>
                  {['1', 'X', '2'][i]}
                </th>
              ))
            ) : (
              <th scope="col">η</th>
            )}
          </tr>
        </thead>
        <tbody>
          {parts.map((part) => (
            <tr key={part.key} data-group={part.key}>
              <th scope="row" title={part.title}>
                {part.label}
              </th>
              <td class="bar-col">
                <Bars values={part.values} scale={scale} />
              </td>
              {part.values.map((v, i) => (
                <td class="num" key={i}>
                  {signed(v)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr data-field="explain-total">
            <th scope="row">{softmax ? 'Score' : 'η'}</th>
            <td class="bar-col">
              {softmax ? null : `cut points ${ex.cut_points?.c1.toFixed(2)}, ${ex.cut_points?.c2.toFixed(2)}`}
            </td>
            {softmax && ex.scores ? (
              SIDES.map((s) => (
                <td class="num" key={s}>
                  {signed(ex.scores![s])}
                </td>
              ))
            ) : (
              <td class="num">{signed(ex.latent ?? 0)}</td>
            )}
          </tr>
        </tfoot>
      </table>
      <p data-field="explain-proba">
        Model: 1 {pct(p.home)} · X {pct(p.draw)} · 2 {pct(p.away)}
      </p>
      <p data-field="explain-market">
        {m.fair
          ? `Market (de-margined${m.odds_observed_at ? `, observed ${m.odds_observed_at.slice(0, 16).replace('T', ' ')} UTC` : ''}): 1 ${pct(m.fair.home)} · X ${pct(m.fair.draw)} · 2 ${pct(m.fair.away)}`
          : 'No market prices were used by this prediction.'}
        {m.prices
          ? ` (prices ${formatOdd(m.prices.home)} / ${formatOdd(m.prices.draw)} / ${formatOdd(m.prices.away)})`
          : ''}
      </p>
      {ex.reproduces_served ? null : (
        <p class="note" data-field="explain-mismatch">
          Re-predicted from newer features than the run stored: these parts give 1 {pct(p.home)}, the card
          shows {pct(ex.served.home)}.
        </p>
      )}
    </div>
  );
}

/** Why the served prediction says what it says, fetched on demand from `/predict/explain/{id}`. */
export class ExplainPanel extends Component<Props, State> {
  override state: State = { status: 'closed' };

  private async load(): Promise<void> {
    this.setState({ status: 'loading' });
    try {
      this.setState({ status: 'done', ex: await api.explain(this.props.matchId) });
    } catch (err) {
      this.setState({ status: 'error', message: describeError(err) });
    }
  }

  override render() {
    const s = this.state;
    if (s.status === 'closed') {
      return (
        <button type="button" class="explain-btn" onClick={() => this.load()}>
          Why this prediction?
        </button>
      );
    }
    if (s.status === 'loading') return <p class="explain-out">Loading the explanation…</p>;
    if (s.status === 'error') return <p class="explain-out live-error">{s.message}</p>;
    return <ExplainChart ex={s.ex} />;
  }
}
