import type {
  BacktestSummary,
  Card,
  DriftSummary,
  Explanation,
  Health,
  LivePrediction,
  ModelInfo,
  PerformanceSummary,
  PromotionStatus,
  RegionRoi,
  ReportEntry,
  RoiBaseline,
  Stage,
  UiConfig,
} from './types.js';

const KEY_STORAGE = 'matchcast.apiKey';

/** An HTTP failure with the status and the server's `detail`, when it sent one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
  ) {
    super(detail);
    this.name = 'ApiError';
  }
}

export function getStoredKey(): string | null {
  try {
    return sessionStorage.getItem(KEY_STORAGE);
  } catch {
    return null;
  }
}

export function storeKey(key: string | null): void {
  try {
    if (key === null) sessionStorage.removeItem(KEY_STORAGE);
    else sessionStorage.setItem(KEY_STORAGE, key);
  } catch {
    // Storage can be disabled (private mode); the key then lives only in memory for this page.
  }
}

function detailOf(body: unknown, status: number): string {
  if (body && typeof body === 'object' && 'detail' in body) {
    const d = (body as { detail: unknown }).detail;
    if (typeof d === 'string') return d;
    if (Array.isArray(d))
      return d.map((x) => (x && typeof x === 'object' && 'msg' in x ? String(x.msg) : '')).join('; ');
  }
  return `HTTP ${status}`;
}

/**
 * A thin client: every call sends the key, and a 401 for the key in use is reported through
 * `onUnauthorized`. A 401 answering a key that has since been replaced (a slow request sent with a
 * mistyped key) is not: it must not throw away the key entered after it.
 */
export class Api {
  constructor(
    private key: () => string | null,
    private onUnauthorized: () => void,
  ) {}

  async get<T>(path: string, signal?: AbortSignal): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    const key = this.key();
    if (key) headers['x-api-key'] = key;
    const res = await fetch(path, { headers, signal, credentials: 'same-origin' });
    if (res.status === 401) {
      if (this.key() === key) this.onUnauthorized();
      throw new ApiError(401, 'The API key was rejected.');
    }
    if (!res.ok) {
      let body: unknown = null;
      try {
        body = await res.json();
      } catch {
        // Not JSON: fall back to the status line.
      }
      throw new ApiError(res.status, detailOf(body, res.status));
    }
    return (await res.json()) as T;
  }

  cards(): Promise<Card[]> {
    return this.get('/predict/cards/');
  }
  regionRoi(): Promise<RegionRoi[]> {
    return this.get('/predict/region-roi/');
  }
  live(matchId: number, stage: Stage): Promise<LivePrediction> {
    return this.get(`/predict/${encodeURIComponent(String(matchId))}?stage=${stage}`);
  }
  modelInfo(stage: Stage): Promise<ModelInfo> {
    return this.get(`/predict/model/info?stage=${stage}`);
  }
  drift(): Promise<DriftSummary> {
    return this.get('/monitoring/drift');
  }
  reports(): Promise<ReportEntry[]> {
    return this.get('/monitoring/reports');
  }
  performance(): Promise<PerformanceSummary> {
    return this.get('/monitoring/performance');
  }
  backtest(): Promise<BacktestSummary> {
    return this.get('/monitoring/backtest');
  }
  promotion(): Promise<PromotionStatus> {
    return this.get('/monitoring/promotion');
  }
  explain(matchId: number): Promise<Explanation> {
    return this.get(`/predict/explain/${encodeURIComponent(String(matchId))}`);
  }
  health(): Promise<Health> {
    return this.get('/healthcheck/');
  }
  config(): Promise<UiConfig> {
    return this.get('/ui/config.json');
  }
  baselines(): Promise<RoiBaseline[]> {
    return this.get('/ui/data/roi-baselines.json');
  }
}

/** A message for a failed call, in words a user can act on. */
export function describeError(err: unknown): string {
  if (err instanceof ApiError) {
    switch (err.status) {
      case 401:
        return 'The API key was rejected. Enter it again.';
      case 404:
        return `Not found: ${err.detail}`;
      case 400:
        return `Not available: ${err.detail}`;
      case 503:
        return `Service unavailable: ${err.detail}`;
      case 504:
        return `The worker did not answer in time: ${err.detail}`;
      default:
        return `Error ${err.status}: ${err.detail}`;
    }
  }
  if (err instanceof Error && err.name === 'AbortError') return 'Cancelled.';
  return 'The server could not be reached.';
}
