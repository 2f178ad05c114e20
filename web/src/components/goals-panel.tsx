import { Component } from 'preact';
import { Api, getStoredKey } from '../lib/api.js';
import { edge, pct, signedPct } from '../lib/cards.js';
import { formatOdd } from '../lib/format.js';
import type { MatchMarkets } from '../lib/types.js';

type State =
  | { status: 'closed' }
  | { status: 'loading' }
  | { status: 'error'; message: string }
  | { status: 'done'; markets: MatchMarkets & { score_matrix?: number[][] }; matrix: boolean };

interface Props {
  matchId: number;
  threshold: number;
}

// Its own client: the panel loads on demand and a 401 surfaces as its error text.
const api = new Api(getStoredKey, () => {});

function Row({
  label,
  p,
  odd,
  threshold,
  field,
}: {
  label: string;
  p: number;
  odd: number | null;
  threshold: number;
  field: string;
}) {
  const e = edge(p, odd);
  const value = e !== null && e > threshold;
  return (
    <tr>
      <th scope="row">{label}</th>
      <td data-field={`${field}-p`}>{pct(p)}</td>
      <td data-field={`${field}-odd`}>{formatOdd(odd)}</td>
      <td class={value ? 'edge value' : 'edge'} data-field={`${field}-edge`}>
        {signedPct(e)}
        {value ? <span class="badge"> value</span> : null}
      </td>
    </tr>
  );
}

/** The score matrix 0–5 goals each side (the tail beyond is tiny), shaded by probability. */
function Matrix({ m }: { m: number[][] }) {
  const n = 6;
  const max = Math.max(...m.slice(0, n).flatMap((r) => r.slice(0, n)));
  return (
    <table class="score-matrix" data-testid="score-matrix">
      <caption>Score probabilities (rows: home goals, columns: away goals)</caption>
      <thead>
        <tr>
          <td />
          {Array.from({ length: n }, (_, a) => (
            <th scope="col" key={a}>
              {a}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {m.slice(0, n).map((row, h) => (
          <tr key={h}>
            <th scope="row">{h}</th>
            {row.slice(0, n).map((p, a) => (
              <td
                key={a}
                style={{ opacity: String(0.35 + (0.65 * p) / max) }}
                title={`${h}-${a}: ${pct(p, 1)}`}
              >
                {(p * 100).toFixed(1)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Goals markets of one card, fetched on demand from `/predict/markets/{id}?matrix=true`. */
export class GoalsPanel extends Component<Props, State> {
  override state: State = { status: 'closed' };

  private async load(): Promise<void> {
    this.setState({ status: 'loading' });
    try {
      const markets = await api.get<MatchMarkets & { score_matrix?: number[][] }>(
        `/predict/markets/${this.props.matchId}?matrix=true`,
      );
      this.setState({ status: 'done', markets, matrix: false });
    } catch (err) {
      this.setState({ status: 'error', message: err instanceof Error ? err.message : String(err) });
    }
  }

  override render() {
    const s = this.state;
    const { threshold } = this.props;
    if (s.status === 'closed') {
      return (
        <button type="button" class="goals-btn" onClick={() => this.load()}>
          Goals markets
        </button>
      );
    }
    if (s.status === 'loading') return <p class="goals-out">Loading goals markets…</p>;
    if (s.status === 'error') return <p class="goals-out live-error">{s.message}</p>;
    const m = s.markets;
    const top = m.top_scores[0];
    return (
      <div class="goals-out" data-testid="goals-panel">
        <p data-field="xg">
          Expected goals <strong>{m.expected_home_goals.toFixed(2)}</strong> –{' '}
          <strong>{m.expected_away_goals.toFixed(2)}</strong>
          {top ? ` · most likely ${top.home}–${top.away} (${pct(top.proba)})` : null}
        </p>
        <table class="odds goals-odds">
          <caption class="sr-only">Goals markets: probability, odds and model edge</caption>
          <thead>
            <tr>
              <td />
              <th scope="col">Model</th>
              <th scope="col">Odds</th>
              <th scope="col">Edge</th>
            </tr>
          </thead>
          <tbody>
            <Row
              label="Over 2.5"
              p={m.over['2.5']}
              odd={m.odds.over25}
              threshold={threshold}
              field="over25"
            />
            <Row
              label="Under 2.5"
              p={m.under['2.5']}
              odd={m.odds.under25}
              threshold={threshold}
              field="under25"
            />
            <Row
              label="BTTS yes"
              p={m.btts_yes}
              odd={m.odds.btts_yes}
              threshold={threshold}
              field="btts-yes"
            />
            <Row label="BTTS no" p={m.btts_no} odd={m.odds.btts_no} threshold={threshold} field="btts-no" />
          </tbody>
        </table>
        {m.score_matrix ? (
          <button
            type="button"
            class="matrix-btn"
            aria-expanded={s.matrix}
            onClick={() => this.setState({ ...s, matrix: !s.matrix })}
          >
            {s.matrix ? 'Hide score matrix' : 'Score matrix'}
          </button>
        ) : null}
        {s.matrix && m.score_matrix ? <Matrix m={m.score_matrix} /> : null}
      </div>
    );
  }
}
