import { Component } from 'preact';
import { edge, type IndexedCard, OUTCOME_NAMES, pct, signedPct } from '../lib/cards.js';
import { formatKickoff, formatOdd, shortRunId } from '../lib/format.js';
import type { LivePrediction, Outcome, Stage } from '../lib/types.js';
import { ExplainPanel } from './explain-panel.js';
import { GoalsPanel } from './goals-panel.js';

export type LiveState =
  | { status: 'loading'; stage: Stage }
  | { status: 'done'; stage: Stage; result: LivePrediction; ms: number }
  | { status: 'error'; stage: Stage; message: string };

interface Props {
  item: IndexedCard;
  threshold: number;
  live: LiveState | undefined;
  onLive: (matchId: number) => void;
}

const SIDES: { outcome: Outcome; short: string; name: string }[] = [
  { outcome: 0, short: '1', name: 'Home' },
  { outcome: 1, short: 'X', name: 'Draw' },
  { outcome: 2, short: '2', name: 'Away' },
];

function ProbBar({ p, label }: { p: [number, number, number]; label: string }) {
  // Widths come from style properties set through the DOM (allowed by a strict style-src CSP).
  return (
    <div class="probbar" role="img" aria-label={label}>
      <span class="seg s0" style={{ width: `${(p[0] * 100).toFixed(2)}%` }} />
      <span class="seg s1" style={{ width: `${(p[1] * 100).toFixed(2)}%` }} />
      <span class="seg s2" style={{ width: `${(p[2] * 100).toFixed(2)}%` }} />
    </div>
  );
}

function probLabel(p: [number, number, number]): string {
  return `Home win ${pct(p[0])}, draw ${pct(p[1])}, away win ${pct(p[2])}`;
}

function LiveResult({ live }: { live: LiveState }) {
  if (live.status === 'loading') return <p class="live-out">Asking the {live.stage} model…</p>;
  if (live.status === 'error') return <p class="live-out live-error">{live.message}</p>;
  const r = live.result;
  const p: [number, number, number] = [
    r.probabilities.home_win,
    r.probabilities.draw,
    r.probabilities.away_win,
  ];
  return (
    <div class="live-out" data-testid="live-result">
      <ProbBar p={p} label={`Live: ${probLabel(p)}`} />
      <p class="legend">
        <span>1 {pct(p[0])}</span> <span>X {pct(p[1])}</span> <span>2 {pct(p[2])}</span> →{' '}
        <strong>{OUTCOME_NAMES[r.predicted_class]}</strong>
      </p>
      <dl class="live-meta">
        <dt>Cached</dt>
        <dd data-field="cached">{r.cached === undefined ? 'n/a' : r.cached ? 'yes' : 'no'}</dd>
        <dt>Stage</dt>
        <dd data-field="stage">{r.model_version}</dd>
        <dt>Run id</dt>
        <dd data-field="run-id" title={r.model_run_id}>
          {shortRunId(r.model_run_id)}
        </dd>
        <dt>Time</dt>
        <dd>{Math.round(live.ms)} ms</dd>
      </dl>
    </div>
  );
}

/** One match. A class so that unchanged cards skip re-rendering when the list above them changes. */
export class MatchCard extends Component<Props> {
  override shouldComponentUpdate(next: Props): boolean {
    const p = this.props;
    return next.item !== p.item || next.live !== p.live || next.threshold !== p.threshold;
  }

  override render() {
    const { item, threshold, live, onLive } = this.props;
    const c = item.card;
    const home = c.home_team_name ?? 'Home';
    const away = c.away_team_name ?? 'Away';
    const p: [number, number, number] = [c.proba_home, c.proba_draw, c.proba_away];
    // Value is judged only against the prices the served prediction used (observed at odds_observed_at);
    // the closing prices came later and are shown apart, never turned into an edge.
    const odds = [c.used_odd_home ?? null, c.used_odd_draw ?? null, c.used_odd_away ?? null];
    const closing = [c.close_odd_home ?? null, c.close_odd_draw ?? null, c.close_odd_away ?? null];
    const hasClosing = closing.some((o) => o !== null);
    const finished = c.status === 'finished' && c.home_score !== null && c.away_score !== null;
    const titleId = `m${c.match_id}`;
    return (
      <article class="card" aria-labelledby={titleId} data-match-id={c.match_id}>
        <h3 id={titleId}>
          {home} v {away}
        </h3>
        <p class="meta">
          <time dateTime={c.start_time_utc}>{formatKickoff(item.t)}</time>
          {` · ${c.region_name ?? '–'}${c.tournament_name ? ` · ${c.tournament_name}` : ''}`}
        </p>
        <ProbBar p={p} label={probLabel(p)} />
        <p class="legend" aria-hidden="true">
          <span class="k0">1 {pct(p[0])}</span>
          <span class="k1">X {pct(p[1])}</span>
          <span class="k2">2 {pct(p[2])}</span>
        </p>
        <p class="pick">
          Prediction: <strong>{OUTCOME_NAMES[c.predicted_class]}</strong>
        </p>
        {c.model_stage === 'fallback' ? (
          <p class="meta" data-field="model-note">
            No odds yet: market-free model
          </p>
        ) : null}
        {c.odds_observed_at ? (
          <p class="meta" data-field="odds-observed-at">
            Prices used by the prediction, observed{' '}
            <time dateTime={c.odds_observed_at}>{c.odds_observed_at.slice(0, 16).replace('T', ' ')} UTC</time>
          </p>
        ) : null}
        {hasClosing && c.close_observed_at ? (
          <p class="meta" data-field="close-observed-at">
            Closing prices observed{' '}
            <time dateTime={c.close_observed_at}>
              {c.close_observed_at.slice(0, 16).replace('T', ' ')} UTC
            </time>{' '}
            (after the prediction; no edge on them)
          </p>
        ) : null}
        <table class="odds">
          <caption class="sr-only">
            Odds and model edge, {home} v {away}
          </caption>
          <thead>
            <tr>
              <td />
              {SIDES.map((s) => (
                <th scope="col" key={s.short} title={s.name}>
                  {s.short}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            <tr>
              <th scope="row" title="The prices the prediction used, observed at the time above">
                Used
              </th>
              {odds.map((o, i) => (
                <td key={i} data-field={`odd-${i}`}>
                  {formatOdd(o)}
                </td>
              ))}
            </tr>
            <tr>
              <th scope="row">Edge</th>
              {odds.map((o, i) => {
                const e = edge(p[i], o);
                const value = e !== null && e > threshold;
                return (
                  <td key={i} class={value ? 'edge value' : 'edge'} data-field={`edge-${i}`}>
                    {signedPct(e)}
                    {value ? <span class="badge"> value</span> : null}
                  </td>
                );
              })}
            </tr>
            {hasClosing ? (
              <tr>
                <th
                  scope="row"
                  title={
                    c.close_observed_at
                      ? `Observed ${c.close_observed_at.slice(0, 16).replace('T', ' ')} UTC`
                      : ''
                  }
                >
                  Closing
                </th>
                {closing.map((o, i) => (
                  <td key={i} data-field={`close-${i}`}>
                    {formatOdd(o)}
                  </td>
                ))}
              </tr>
            ) : null}
          </tbody>
        </table>
        {finished ? (
          <p class="result" data-field="result">
            Full time{' '}
            <strong>
              {c.home_score}–{c.away_score}
            </strong>{' '}
            ({c.outcome === null ? '–' : OUTCOME_NAMES[c.outcome]}){' '}
            {c.prediction_correct === null ? null : c.prediction_correct ? (
              <span class="hit">✓ prediction right</span>
            ) : (
              <span class="miss">✗ prediction wrong</span>
            )}
          </p>
        ) : (
          <p class="result upcoming-tag">Not played yet</p>
        )}
        <div class="card-actions">
          {c.bookmaker_url ? (
            <a
              href={c.bookmaker_url}
              target="_blank"
              rel="noopener noreferrer"
              aria-label={`Bookmaker odds for ${home} v ${away} (opens in a new tab)`}
            >
              Bookmaker
            </a>
          ) : null}
          <button
            type="button"
            class="live-btn"
            onClick={() => onLive(c.match_id)}
            disabled={live?.status === 'loading'}
            aria-describedby={titleId}
          >
            Live prediction
          </button>
        </div>
        {live ? <LiveResult live={live} /> : null}
        <ExplainPanel matchId={c.match_id} />
        <GoalsPanel matchId={c.match_id} threshold={threshold} />
      </article>
    );
  }
}
