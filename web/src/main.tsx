import './styles.css';
import { render } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { BacktestView } from './components/backtest-view.js';
import { CardList } from './components/card-list.js';
import { KeyPrompt } from './components/key-prompt.js';
import type { LiveState } from './components/match-card.js';
import { type Loadable, ModelsPanel } from './components/models-panel.js';
import { PerformanceView } from './components/performance-view.js';
import { RoiChart } from './components/roi-chart.js';
import { StageSwitch } from './components/stage-switch.js';
import { Api, ApiError, describeError, getStoredKey, storeKey } from './lib/api.js';
import {
  type CardFilter,
  DEFAULT_EDGE_THRESHOLD,
  defaultView,
  EMPTY_FILTER,
  type IndexedCard,
  indexCards,
  OUTCOME_NAMES,
  pct,
} from './lib/cards.js';
import type {
  BacktestSummary,
  DriftSummary,
  ModelInfo,
  PerformanceSummary,
  PromotionStatus,
  RegionRoi,
  ReportEntry,
  RoiBaseline,
  Stage,
} from './lib/types.js';

/** Cards rendered at first and added by each "Show more"; `?page=N` overrides (benchmarks use 500). */
function pageSize(): number {
  const n = Number(new URLSearchParams(location.search).get('page'));
  return Number.isInteger(n) && n >= 1 && n <= 100_000 ? n : 100;
}

/**
 * Seconds between reloads of the match cards while the page is visible (the served predictions move:
 * new odds re-predicted, results, a replay's clock); `?refresh=N` overrides, `?refresh=0` turns it off.
 */
function refreshSeconds(): number {
  const raw = new URLSearchParams(location.search).get('refresh');
  const n = raw === null ? Number.NaN : Number(raw);
  return Number.isFinite(n) && n >= 0 && n <= 86_400 ? n : 30;
}

const mark = (name: string) => performance.mark(name);

const STAGE_STORAGE = 'matchcast.stage';

function storedStage(): Stage {
  try {
    return sessionStorage.getItem(STAGE_STORAGE) === 'challenger' ? 'challenger' : 'champion';
  } catch {
    return 'champion';
  }
}

function App() {
  const [key, setKey] = useState<string | null>(getStoredKey());
  const [keyMessage, setKeyMessage] = useState<string | null>(null);
  const [stage, setStage] = useState<Stage>(storedStage());
  const [threshold, setThreshold] = useState<{ value: number; source: 'server' | 'default' }>({
    value: DEFAULT_EDGE_THRESHOLD,
    source: 'default',
  });
  const [cards, setCards] = useState<Loadable<IndexedCard[]>>({ state: 'loading' });
  const [filter, setFilter] = useState<CardFilter>(EMPTY_FILTER);
  const size = useRef(pageSize()).current;
  const [shown, setShown] = useState(size);
  const [live, setLive] = useState<Map<number, LiveState>>(new Map());
  const [roi, setRoi] = useState<Loadable<RegionRoi[]>>({ state: 'loading' });
  const [baselines, setBaselines] = useState<RoiBaseline[] | null>(null);
  const [models, setModels] = useState<Record<Stage, Loadable<ModelInfo>>>({
    champion: { state: 'loading' },
    challenger: { state: 'loading' },
  });
  const [drift, setDrift] = useState<Loadable<DriftSummary>>({ state: 'loading' });
  const [reports, setReports] = useState<Loadable<ReportEntry[]>>({ state: 'loading' });
  const [performanceSummary, setPerformance] = useState<Loadable<PerformanceSummary>>({ state: 'loading' });
  const [backtestSummary, setBacktest] = useState<Loadable<BacktestSummary>>({ state: 'loading' });
  const [promotion, setPromotion] = useState<Loadable<PromotionStatus>>({ state: 'loading' });
  const [announcement, setAnnouncement] = useState('');
  const [clock, setClock] = useState<string | null>(null);

  const keyRef = useRef(key);
  keyRef.current = key;
  const stageRef = useRef(stage);
  stageRef.current = stage;

  const api = useRef(
    new Api(
      () => keyRef.current,
      () => {
        storeKey(null);
        keyRef.current = null;
        setKey(null);
        setKeyMessage('The API key was rejected (HTTP 401). Enter it again.');
      },
    ),
  ).current;

  // The service's "now" during a replay (`start --as-of`), polled like the cards; absent otherwise.
  useEffect(() => {
    const poll = () =>
      api.health().then(
        (h) => setClock(h.clock ?? null),
        () => undefined,
      );
    poll();
    const every = refreshSeconds();
    if (every === 0) return;
    const timer = setInterval(() => {
      if (document.visibilityState !== 'hidden') poll();
    }, every * 1000);
    return () => clearInterval(timer);
  }, [api]);

  // Unprotected data: available before a key is entered.
  useEffect(() => {
    api.config().then(
      (c) =>
        Number.isFinite(c.edge_threshold) &&
        setThreshold({ value: c.edge_threshold, source: c.edge_threshold_source ?? 'server' }),
      () => undefined,
    );
    api.drift().then(
      (value) => setDrift({ state: 'ok', value }),
      (e) =>
        e instanceof ApiError && e.status === 401
          ? undefined
          : setDrift({ state: 'error', message: describeError(e) }),
    );
    api.reports().then(
      (value) => setReports({ state: 'ok', value }),
      (e) =>
        e instanceof ApiError && e.status === 401
          ? undefined
          : setReports({ state: 'error', message: describeError(e) }),
    );
    api.performance().then(
      (value) => setPerformance({ state: 'ok', value }),
      (e) =>
        e instanceof ApiError && e.status === 401
          ? undefined
          : setPerformance({ state: 'error', message: describeError(e) }),
    );
    api.backtest().then(
      (value) => setBacktest({ state: 'ok', value }),
      (e) =>
        e instanceof ApiError && e.status === 401
          ? undefined
          : setBacktest({ state: 'error', message: describeError(e) }),
    );
    api.promotion().then(
      (value) => setPromotion({ state: 'ok', value }),
      (e) =>
        e instanceof ApiError && e.status === 401
          ? undefined
          : setPromotion({ state: 'error', message: describeError(e) }),
    );
  }, [api, key]);

  const loadModel = useCallback(
    (s: Stage) => {
      api.modelInfo(s).then(
        (value) => setModels((m) => ({ ...m, [s]: { state: 'ok', value } })),
        (e) => {
          const message =
            e instanceof ApiError && e.status === 400 ? `No ${s} model is assigned` : describeError(e);
          setModels((m) => ({ ...m, [s]: { state: 'error', message } }));
        },
      );
    },
    [api],
  );

  // Protected data: loaded whenever a (new) key is set.
  useEffect(() => {
    if (!key) return;
    setCards({ state: 'loading' });
    mark('mc:cards-fetch-start');
    // A failed first load (server still starting, a 503 while a run is published) is retried with a
    // growing pause instead of waiting for the periodic reload; a 401 asks for the key instead.
    let retry: ReturnType<typeof setTimeout> | undefined;
    let cancelled = false;
    const load = (attempt: number) =>
      api.cards().then(
        (list) => {
          if (cancelled) return;
          mark('mc:cards-fetched');
          const indexed = indexCards(list);
          setFilter((f) => (f === EMPTY_FILTER ? { ...f, view: defaultView(indexed) } : f));
          setCards({ state: 'ok', value: indexed });
        },
        (e) => {
          if (cancelled) return;
          setCards({ state: 'error', message: describeError(e) });
          if (e instanceof ApiError && e.status === 401) return;
          retry = setTimeout(() => load(attempt + 1), Math.min(2_000 * 2 ** attempt, 30_000));
        },
      );
    load(0);
    api.regionRoi().then(
      (value) => setRoi({ state: 'ok', value }),
      (e) => setRoi({ state: 'error', message: describeError(e) }),
    );
    api.baselines().then(
      (list) => setBaselines(list.length > 0 ? list : null),
      () => setBaselines(null),
    );
    loadModel('champion');
    loadModel('challenger');
    return () => {
      cancelled = true;
      clearTimeout(retry);
    };
  }, [api, key, loadModel]);

  // Keep the cards current while the page is open: odds and probabilities change as odds arrive (and
  // as a replay's clock moves). Filters, paging and live answers stay; a failed reload keeps the list.
  const refreshEvery = useRef(refreshSeconds()).current;
  useEffect(() => {
    if (!key || refreshEvery === 0) return;
    let inflight = false;
    const timer = setInterval(() => {
      if (inflight || document.visibilityState === 'hidden') return;
      inflight = true;
      api
        .cards()
        .then(
          (list) => setCards({ state: 'ok', value: indexCards(list) }),
          () => undefined,
        )
        .finally(() => {
          inflight = false;
        });
    }, refreshEvery * 1000);
    return () => clearInterval(timer);
  }, [api, key, refreshEvery]);

  const onLive = useCallback(
    (matchId: number) => {
      const s = stageRef.current;
      const started = performance.now();
      const put = (v: LiveState) => setLive((m) => new Map(m).set(matchId, v));
      put({ status: 'loading', stage: s });
      setAnnouncement(`Asking the ${s} model for match ${matchId}…`);
      api.live(matchId, s).then(
        (result) => {
          put({ status: 'done', stage: s, result, ms: performance.now() - started });
          const p = result.probabilities;
          setAnnouncement(
            `Live prediction from ${result.model_version}: ${OUTCOME_NAMES[result.predicted_class]}, home ${pct(p.home_win)}, draw ${pct(p.draw)}, away ${pct(p.away_win)}${result.cached ? ', from cache' : ''}.`,
          );
        },
        (e) => {
          const message = describeError(e);
          put({ status: 'error', stage: s, message });
          setAnnouncement(`Live prediction failed: ${message}`);
        },
      );
    },
    [api],
  );

  const onFirstRender = useCallback((count: number) => {
    mark('mc:cards-rendered');
    performance.measure('mc:cards-render', 'mc:cards-fetched', 'mc:cards-rendered');
    document.body.dataset.cardsRendered = String(count);
    // Two frames later the browser has painted what was committed.
    requestAnimationFrame(() =>
      setTimeout(() => {
        mark('mc:cards-painted');
        performance.measure('mc:cards-paint', 'mc:cards-fetched', 'mc:cards-painted');
        document.body.dataset.cardsPainted = String(count);
      }, 0),
    );
  }, []);

  const changeStage = (s: Stage) => {
    setStage(s);
    try {
      sessionStorage.setItem(STAGE_STORAGE, s);
    } catch {
      // Storage disabled: the choice lasts until the page is reloaded.
    }
    setAnnouncement(`${s === 'champion' ? 'Champion' : 'Challenger'} model selected for live predictions.`);
    if (keyRef.current) loadModel(s);
  };

  return (
    <>
      <a class="skip" href="#matches">
        Skip to matches
      </a>
      <header class="top">
        <h1>matchcast</h1>
        <nav aria-label="Sections">
          <a href="#matches">Matches</a>
          <a href="#roi">ROI</a>
          <a href="#backtest">Backtest</a>
          <a href="#performance">Performance</a>
          <a href="#models">Models</a>
        </nav>
        {clock ? (
          <p class="clock" data-testid="replay-clock" title="The replay's clock: the service's now">
            Replay clock <time dateTime={clock}>{clock.slice(0, 16).replace('T', ' ')} UTC</time>
          </p>
        ) : null}
        <StageSwitch stage={stage} onChange={changeStage} />
        {key ? (
          <button
            type="button"
            class="secondary"
            onClick={() => {
              storeKey(null);
              setKey(null);
              setKeyMessage(null);
            }}
          >
            Change API key
          </button>
        ) : null}
      </header>
      <p class="sr-only" role="status" aria-live="polite" data-testid="announcer">
        {announcement}
      </p>
      {key ? null : (
        <KeyPrompt
          message={keyMessage}
          onSubmit={(k) => {
            storeKey(k);
            setKeyMessage(null);
            setKey(k);
          }}
        />
      )}
      <main>
        <section id="matches" aria-labelledby="matches-title" tabIndex={-1}>
          <h2 id="matches-title">Matches</h2>
          {!key ? <p>Enter the API key to see match cards.</p> : null}
          {key && cards.state === 'loading' ? <p aria-live="polite">Loading matches…</p> : null}
          {key && cards.state === 'error' ? (
            <p class="error" role="alert">
              {cards.message}
            </p>
          ) : null}
          {key && cards.state === 'ok' ? (
            <CardList
              cards={cards.value}
              filter={filter}
              onFilter={(f) => {
                setFilter(f);
                setShown(size);
              }}
              shown={shown}
              pageSize={size}
              onShowMore={() => setShown((n) => n + size)}
              threshold={threshold.value}
              thresholdSource={threshold.source}
              live={live}
              onLive={onLive}
              onFirstRender={onFirstRender}
            />
          ) : null}
        </section>
        <section id="roi" aria-labelledby="roi-title">
          <h2 id="roi-title">ROI per region</h2>
          {!key ? <p>Enter the API key to see ROI per region.</p> : null}
          {key && roi.state === 'loading' ? <p>Loading ROI…</p> : null}
          {key && roi.state === 'error' ? <p class="error">{roi.message}</p> : null}
          {key && roi.state === 'ok' ? <RoiChart rows={roi.value} baselines={baselines} /> : null}
        </section>
        <section id="backtest" aria-labelledby="backtest-title">
          <h2 id="backtest-title">Backtest</h2>
          {backtestSummary.state === 'loading' ? <p>Loading the backtest…</p> : null}
          {backtestSummary.state === 'error' ? <p class="error">{backtestSummary.message}</p> : null}
          {backtestSummary.state === 'ok' ? <BacktestView summary={backtestSummary.value} /> : null}
        </section>
        <section id="performance" aria-labelledby="performance-title">
          <h2 id="performance-title">Realised performance</h2>
          {performanceSummary.state === 'loading' ? <p>Loading realised performance…</p> : null}
          {performanceSummary.state === 'error' ? <p class="error">{performanceSummary.message}</p> : null}
          {performanceSummary.state === 'ok' ? <PerformanceView summary={performanceSummary.value} /> : null}
        </section>
        <section id="models" aria-labelledby="models-title">
          <h2 id="models-title">Models and monitoring</h2>
          <ModelsPanel
            stage={stage}
            models={
              key
                ? models
                : {
                    champion: { state: 'error', message: 'API key needed' },
                    challenger: { state: 'error', message: 'API key needed' },
                  }
            }
            drift={drift}
            reports={reports}
            promotion={promotion}
          />
        </section>
      </main>
      <footer class="foot">
        <a href="/docs" target="_blank" rel="noopener noreferrer">
          API documentation
        </a>
      </footer>
    </>
  );
}

const root = document.getElementById('app');
if (root) {
  root.textContent = '';
  render(<App />, root);
}
