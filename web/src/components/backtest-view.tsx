import { useState } from 'preact/hooks';
import { formatNumber } from '../lib/format.js';
import type { BacktestSummary } from '../lib/types.js';

const COLOURS: Record<string, string> = { model: '#1f5f99', favourite: '#c46200', always_first: '#2e7d32' };

function signed(v: number | null | undefined, digits = 4): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  return `${v > 0 ? '+' : ''}${v.toFixed(digits)}`;
}

function interval(lo: number | null | undefined, hi: number | null | undefined, digits = 4): string {
  return `[${signed(lo, digits)}, ${signed(hi, digits)}]`;
}

/** Cumulative profit per strategy over time, one market and staking plan. */
function ProfitChart({ s, market, staking }: { s: BacktestSummary; market: string; staking: string }) {
  const series = s.profit.filter((p) => p.market === market && p.staking === staking && p.points.length > 0);
  if (series.length === 0) return <p>No bets in this market.</p>;
  const weeks = [...new Set(series.flatMap((p) => p.points.map((q) => q.week)))].sort();
  const values = series.flatMap((p) => p.points.map((q) => q.cumulative_profit));
  const lo = Math.min(0, ...values);
  const hi = Math.max(0, ...values);
  const W = 560;
  const H = 200;
  const L = 48;
  const T = 10;
  const pw = W - L - 8;
  const ph = H - T - 28;
  const x = (w: string) => L + (weeks.length <= 1 ? pw / 2 : (weeks.indexOf(w) / (weeks.length - 1)) * pw);
  const y = (v: number) => T + ph - ((v - lo) / (hi - lo || 1)) * ph;
  return (
    <figure class="perf-chart">
      <svg
        viewBox={`0 0 ${W} ${H}`}
        width="100%"
        role="img"
        aria-label={`Cumulative profit in units per strategy, ${market}, ${staking} stakes`}
        data-testid="bt-profit"
      >
        <line x1={L} y1={y(0)} x2={W - 8} y2={y(0)} stroke="#888" />
        <text x={L - 4} y={T + 8} text-anchor="end" font-size="10">
          {hi.toFixed(0)}
        </text>
        <text x={L - 4} y={T + ph} text-anchor="end" font-size="10">
          {lo.toFixed(0)}
        </text>
        <text x={L} y={H - 8} font-size="10">
          {weeks[0]}
        </text>
        <text x={W - 8} y={H - 8} text-anchor="end" font-size="10">
          {weeks[weeks.length - 1]}
        </text>
        {series.map((p) => (
          <path
            key={p.strategy}
            d={p.points
              .map((q, i) => `${i ? 'L' : 'M'}${x(q.week).toFixed(1)},${y(q.cumulative_profit).toFixed(1)}`)
              .join('')}
            fill="none"
            stroke={COLOURS[p.strategy] ?? '#555'}
            stroke-width="2"
            data-line={p.strategy}
          />
        ))}
      </svg>
      <figcaption>
        Cumulative profit (units) by kick-off week:{' '}
        {series.map((p) => (
          <span key={p.strategy} class="legend">
            <svg width="14" height="10" aria-hidden="true">
              <rect width="14" height="10" fill={COLOURS[p.strategy] ?? '#555'} />
            </svg>{' '}
            {p.strategy}{' '}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}

function Reliability({ s }: { s: BacktestSummary }) {
  const S = 220;
  const P = 30;
  const w = S - 2 * P;
  const bins = s.reliability.bins.filter(
    (b) => b.n > 0 && b.mean_predicted !== null && b.observed_frequency !== null,
  );
  const maxN = Math.max(1, ...bins.map((b) => b.n));
  return (
    <figure class="perf-chart">
      <svg
        viewBox={`0 0 ${S} ${S}`}
        width={S}
        role="img"
        aria-label="Reliability diagram of the early-horizon walk-forward predictions"
        data-testid="bt-reliability"
      >
        <rect x={P} y={P} width={w} height={w} fill="none" stroke="#888" />
        <line x1={P} y1={P + w} x2={P + w} y2={P} stroke="#aaa" stroke-dasharray="4 3" />
        {bins.map((b) => (
          <circle
            key={b.lower}
            cx={P + (b.mean_predicted as number) * w}
            cy={P + w - (b.observed_frequency as number) * w}
            r={2 + 5 * Math.sqrt(b.n / maxN)}
            fill="#1f5f99"
            data-bin={b.lower}
          >
            <title>{`${b.lower.toFixed(1)}–${b.upper.toFixed(1)}: predicted ${formatNumber(b.mean_predicted)}, observed ${formatNumber(b.observed_frequency)} (${b.n})`}</title>
          </circle>
        ))}
      </svg>
      <figcaption>
        Early horizon, {s.reliability.n} finished matches (three probabilities each), deciles of predicted
        probability.
      </figcaption>
    </figure>
  );
}

/**
 * The walk-forward backtest of the published run (`GET /monitoring/backtest`): every figure names its
 * matches, kick-off window, horizon and line; they are computed from the rows of the backtest and bets
 * exports, whose links are given.
 */
export function BacktestView({ summary: s }: { summary: BacktestSummary }) {
  const [view, setView] = useState('early|opening');
  const [market, setMarket] = useState('1x2');
  const [staking, setStaking] = useState('flat');
  if (!s.available) return <p data-testid="bt-empty">The published run has no walk-forward backtest rows.</p>;
  const [horizon, line] = view.split('|');
  const rows = s.comparisons.filter((c) => c.horizon === horizon && c.line === line);
  const bets = s.bets.filter((b) => b.market === market && b.staking === staking && b.season === 'all');
  const pct = (v: number | null) => (v === null ? '–' : `${v > 0 ? '+' : ''}${v.toFixed(2)}%`);
  return (
    <div class="performance" data-testid="backtest">
      <p>
        Walk-forward backtest of run <code>{s.run_id ?? '–'}</code>: {s.n_matches} out-of-sample matches
        kicking off {s.first_kickoff?.slice(0, 10)} → {s.last_kickoff?.slice(0, 10)}. Lines are de-margined (
        {s.demargin}); intervals are paired bootstrap ({s.bootstrap.resamples} resamples of the matches,{' '}
        {Math.round(s.bootstrap.level * 100)} %). Every figure is recomputable from the rows of{' '}
        <code>/predict/export/backtest</code> and <code>/predict/export/bets</code> (CSV or Parquet, API key).
      </p>
      <label>
        Horizon and line{' '}
        <select
          value={view}
          onChange={(e) => setView((e.currentTarget as HTMLSelectElement).value)}
          data-testid="bt-view"
        >
          <option value="early|opening">early (kick-off − 48 h) vs opening line</option>
          <option value="early|closing">early (kick-off − 48 h) vs closing line</option>
          <option value="kickoff|closing">kick-off vs closing line</option>
        </select>
      </label>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard */}
      <section class="scroll-x" tabIndex={0} aria-label="Backtest against the line per season and region">
        <table class="perf-table" data-testid="bt-table">
          <caption class="sr-only">
            Log loss and RPS of the model against the line per season and region
          </caption>
          <thead>
            <tr>
              <th scope="col">Season</th>
              <th scope="col">Region</th>
              <th scope="col">Matches</th>
              <th scope="col">Model log loss</th>
              <th scope="col">Line log loss</th>
              <th scope="col">Model − line [95 %]</th>
              <th scope="col">Model RPS</th>
              <th scope="col">Line RPS</th>
              <th scope="col">Model − line [95 %]</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((c) => (
              <tr key={`${c.season}|${c.region_name}`} data-season={c.season} data-region={c.region_name}>
                <th scope="row">{c.season}</th>
                <td>{c.region_name}</td>
                <td class="num" data-field="n">
                  {c.n}
                </td>
                <td class="num" data-field="model-log-loss">
                  {c.model_log_loss.toFixed(4)}
                </td>
                <td class="num" data-field="line-log-loss">
                  {c.line_log_loss.toFixed(4)}
                </td>
                <td class="num">
                  {signed(c.diff_log_loss)} {interval(c.diff_log_loss_low, c.diff_log_loss_high)}
                </td>
                <td class="num">{c.model_rps.toFixed(4)}</td>
                <td class="num">{c.line_rps.toFixed(4)}</td>
                <td class="num">
                  {signed(c.diff_rps)} {interval(c.diff_rps_low, c.diff_rps_high)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <h3>Betting on the walk-forward predictions</h3>
      <p>
        Each bet takes the latest price observed by the prediction time (kick-off − 48 h); closing-line value
        = price taken × de-margined closing probability − 1. The model bets when p × price − 1 &gt;{' '}
        {s.edge_threshold}; Kelly stakes are a quarter Kelly, capped at 5 % of a 100-unit bankroll.
      </p>
      <label>
        Market{' '}
        <select
          value={market}
          onChange={(e) => setMarket((e.currentTarget as HTMLSelectElement).value)}
          data-testid="bt-market"
        >
          <option value="1x2">1X2</option>
          <option value="ou25">Over/under 2.5</option>
          <option value="btts">Both teams score</option>
        </select>
      </label>{' '}
      <label>
        Stakes{' '}
        <select
          value={staking}
          onChange={(e) => setStaking((e.currentTarget as HTMLSelectElement).value)}
          data-testid="bt-staking"
        >
          <option value="flat">flat (1 unit)</option>
          <option value="kelly">fractional Kelly (capped)</option>
        </select>
      </label>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard */}
      <section class="scroll-x" tabIndex={0} aria-label="Bets per strategy and region">
        <table class="perf-table" data-testid="bt-bets">
          <caption class="sr-only">
            Closing-line value, ROI and drawdown per strategy and region, all seasons
          </caption>
          <thead>
            <tr>
              <th scope="col">Strategy</th>
              <th scope="col">Region</th>
              <th scope="col">Bets</th>
              <th scope="col">CLV mean [95 %]</th>
              <th scope="col">ROI</th>
              <th scope="col">Profit (units)</th>
              <th scope="col">Max drawdown</th>
            </tr>
          </thead>
          <tbody>
            {bets.map((b) => (
              <tr
                key={`${b.strategy}|${b.region_name}`}
                data-strategy={b.strategy}
                data-region={b.region_name}
              >
                <th scope="row">{b.strategy}</th>
                <td>{b.region_name}</td>
                <td class="num" data-field="n-bets">
                  {b.n_bets}
                </td>
                <td class="num" data-field="clv">
                  {signed(b.clv_mean)} {interval(b.clv_ci_low, b.clv_ci_high)}
                </td>
                <td class="num" data-field="roi">
                  {pct(b.roi_pct)}
                </td>
                <td class="num">{b.profit.toFixed(1)}</td>
                <td class="num">{b.max_drawdown.toFixed(1)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <div class="perf-charts">
        <ProfitChart s={s} market={market} staking={staking} />
        <Reliability s={s} />
      </div>
    </div>
  );
}
