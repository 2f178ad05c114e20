import { pct } from '../lib/cards.js';
import type { RegionRoi, RoiBaseline } from '../lib/types.js';

interface Props {
  rows: RegionRoi[];
  /** Null when the server exposes no baselines. */
  baselines: RoiBaseline[] | null;
}

const W = 240;
const BAR_H = 14;
const BASE_H = 6;

function fmtRoi(v: number | null): string {
  if (v === null || !Number.isFinite(v)) return '–';
  return `${v > 0 ? '+' : ''}${v.toFixed(1)}%`;
}

function strategyLabel(s: string): string {
  const known: Record<string, string> = {
    favourite: 'Always the favourite',
    favorite: 'Always the favourite',
    home: 'Always the home side',
  };
  return known[s] ?? s.replace(/_/g, ' ');
}

function regionKey(id: number | null, name: string | null): string {
  return id !== null ? `id:${id}` : `name:${name ?? ''}`;
}

/** ROI per region as horizontal bars sharing one scale, with the figures beside each bar. */
export function RoiChart({ rows, baselines }: Props) {
  if (rows.length === 0) {
    return <p>No ROI figures yet: the betting simulation has not produced reports/roi_by_region.csv.</p>;
  }
  const strategies = baselines ? [...new Set(baselines.map((b) => b.strategy))] : [];
  const byRegion = new Map<string, Map<string, RoiBaseline>>();
  for (const b of baselines ?? []) {
    const k = regionKey(b.region_id, b.region_name);
    if (!byRegion.has(k)) byRegion.set(k, new Map());
    byRegion.get(k)!.set(b.strategy, b);
  }
  const values: number[] = [0];
  for (const r of rows) if (r.roi_pct !== null) values.push(r.roi_pct);
  for (const b of baselines ?? []) if (b.roi_pct !== null) values.push(b.roi_pct);
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const span = hi - lo || 1;
  const x = (v: number) => ((v - lo) / span) * W;
  const zero = x(0);
  const sorted = [...rows].sort((a, b) => (b.roi_pct ?? -Infinity) - (a.roi_pct ?? -Infinity));
  const rowH = BAR_H + strategies.length * (BASE_H + 2) + 4;

  return (
    <>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard */}
      <section class="scroll-x" tabIndex={0} aria-label="ROI per region table">
        <table class="roi">
          <caption>
            Flat-stake ROI of the model's value bets per region (scale {fmtRoi(lo)} to {fmtRoi(hi)}; the line
            marks 0%).
          </caption>
          <thead>
            <tr>
              <th scope="col">Region</th>
              <th scope="col" class="bar-col">
                ROI
              </th>
              <th scope="col">ROI %</th>
              <th scope="col">Bets</th>
              <th scope="col">Hit rate</th>
              {strategies.map((s) => (
                <th scope="col" key={s}>
                  {strategyLabel(s)} ROI
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {sorted.map((r) => {
              const base = byRegion.get(regionKey(r.region_id, r.region_name));
              const v = r.roi_pct;
              return (
                <tr key={regionKey(r.region_id, r.region_name)} data-region={r.region_name ?? ''}>
                  <th scope="row">{r.region_name ?? `Region ${r.region_id ?? '?'}`}</th>
                  <td class="bar-col">
                    <svg
                      viewBox={`0 0 ${W} ${rowH}`}
                      width="100%"
                      height={rowH}
                      preserveAspectRatio="none"
                      aria-hidden="true"
                      focusable="false"
                    >
                      {v !== null ? (
                        <rect
                          class={v >= 0 ? 'bar pos' : 'bar neg'}
                          x={Math.min(zero, x(v))}
                          y={2}
                          width={Math.max(1, Math.abs(x(v) - zero))}
                          height={BAR_H}
                        />
                      ) : null}
                      {strategies.map((s, i) => {
                        const bv = base?.get(s)?.roi_pct ?? null;
                        if (bv === null) return null;
                        return (
                          <rect
                            key={s}
                            class={`bar base b${i % 3}`}
                            x={Math.min(zero, x(bv))}
                            y={2 + BAR_H + 2 + i * (BASE_H + 2)}
                            width={Math.max(1, Math.abs(x(bv) - zero))}
                            height={BASE_H}
                          />
                        );
                      })}
                      <line class="zero" x1={zero} x2={zero} y1={0} y2={rowH} />
                    </svg>
                  </td>
                  <td class={v === null ? 'num' : v >= 0 ? 'num up' : 'num down'}>{fmtRoi(v)}</td>
                  <td class="num">{r.n_bets}</td>
                  <td class="num">{pct(r.hit_rate, 1)}</td>
                  {strategies.map((s) => (
                    <td class="num" key={s}>
                      {fmtRoi(base?.get(s)?.roi_pct ?? null)}
                    </td>
                  ))}
                </tr>
              );
            })}
          </tbody>
        </table>
      </section>
      {strategies.length > 0 ? (
        <p class="chart-legend">
          <span class="sw model" aria-hidden="true" /> Model{' '}
          {strategies.map((s, i) => (
            <span key={s}>
              <span class={`sw b${i % 3}`} aria-hidden="true" /> {strategyLabel(s)}{' '}
            </span>
          ))}
          (baselines bet the same matches)
        </p>
      ) : (
        <p class="note">
          Baselines (always the favourite, always the home side) are not available from this server; the chart
          shows the model only.
        </p>
      )}
    </>
  );
}
