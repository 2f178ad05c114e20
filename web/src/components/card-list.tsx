import { useLayoutEffect, useMemo, useRef } from 'preact/hooks';
import {
  type CardFilter,
  filterCards,
  type IndexedCard,
  type RegionOption,
  regionOptions,
  teamNames,
  type View,
} from '../lib/cards.js';
import { type LiveState, MatchCard } from './match-card.js';

interface Props {
  cards: IndexedCard[];
  filter: CardFilter;
  onFilter: (f: CardFilter) => void;
  shown: number;
  pageSize: number;
  onShowMore: () => void;
  threshold: number;
  thresholdSource: 'server' | 'default';
  live: Map<number, LiveState>;
  onLive: (matchId: number) => void;
  /** Called once after the first commit that put cards in the DOM. */
  onFirstRender: (count: number) => void;
}

const VIEWS: { id: View; label: string }[] = [
  { id: 'upcoming', label: 'Upcoming' },
  { id: 'recent', label: 'Recent results' },
  { id: 'all', label: 'All' },
];

function Filters({
  filter,
  onFilter,
  regions,
  teams,
}: {
  filter: CardFilter;
  onFilter: (f: CardFilter) => void;
  regions: RegionOption[];
  teams: string[];
}) {
  const set = (patch: Partial<CardFilter>) => onFilter({ ...filter, ...patch });
  return (
    <form class="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filter matches">
      <fieldset class="views">
        <legend>Show</legend>
        {VIEWS.map((v) => (
          <label key={v.id} class={filter.view === v.id ? 'seg-opt on' : 'seg-opt'}>
            <input
              type="radio"
              name="view"
              value={v.id}
              checked={filter.view === v.id}
              onChange={() => set({ view: v.id })}
            />
            {v.label}
          </label>
        ))}
      </fieldset>
      <div class="field">
        <label for="f-region">Region</label>
        <select id="f-region" value={filter.region} onChange={(e) => set({ region: e.currentTarget.value })}>
          <option value="">All regions</option>
          {regions.map((r) => (
            <option key={r.id} value={r.id}>
              {r.name}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="f-from">From</label>
        <input
          type="date"
          id="f-from"
          value={filter.from}
          onChange={(e) => set({ from: e.currentTarget.value })}
        />
      </div>
      <div class="field">
        <label for="f-to">To</label>
        <input type="date" id="f-to" value={filter.to} onChange={(e) => set({ to: e.currentTarget.value })} />
      </div>
      <div class="field">
        <label for="f-team">Team</label>
        <input
          type="search"
          id="f-team"
          list="team-names"
          autoComplete="off"
          placeholder="Any team"
          value={filter.team}
          onInput={(e) => set({ team: e.currentTarget.value })}
        />
      </div>
      <datalist id="team-names">
        {teams.map((t) => (
          <option key={t} value={t} />
        ))}
      </datalist>
      <button
        type="button"
        class="secondary"
        onClick={() => onFilter({ view: filter.view, region: '', from: '', to: '', team: '' })}
      >
        Clear filters
      </button>
    </form>
  );
}

export function CardList(props: Props) {
  const { cards, filter, shown, threshold, live, onLive } = props;
  const regions = useMemo(() => regionOptions(cards), [cards]);
  const teams = useMemo(() => teamNames(cards), [cards]);
  const filtered = useMemo(() => filterCards(cards, filter), [cards, filter]);
  const visible = filtered.length > shown ? filtered.slice(0, shown) : filtered;
  const reported = useRef(false);

  useLayoutEffect(() => {
    if (!reported.current && visible.length > 0) {
      reported.current = true;
      props.onFirstRender(visible.length);
    }
  });

  return (
    <>
      <Filters filter={filter} onFilter={props.onFilter} regions={regions} teams={teams} />
      <p class="count" aria-live="polite" data-testid="card-count">
        {filtered.length === 0
          ? 'No matches fit these filters.'
          : `Showing ${visible.length} of ${filtered.length} matches.`}{' '}
        <span class="hint">
          Edge = probability × odd − 1; highlighted above {(threshold * 100).toFixed(0)}%
          {props.thresholdSource === 'default' ? ' (default threshold)' : ''}.
        </span>
      </p>
      <ol class="cards" aria-label="Matches">
        {visible.map((item) => (
          <li key={item.card.match_id}>
            <MatchCard
              item={item}
              threshold={threshold}
              live={live.get(item.card.match_id)}
              onLive={onLive}
            />
          </li>
        ))}
      </ol>
      {filtered.length > visible.length ? (
        <button type="button" class="more" onClick={props.onShowMore}>
          Show {Math.min(props.pageSize, filtered.length - visible.length)} more
        </button>
      ) : null}
    </>
  );
}
