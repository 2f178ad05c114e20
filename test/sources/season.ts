import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One row of the shared football CSV (england.csv), the fields the tests publish. */
export interface SeasonRow {
  kickoff: Date;
  home: string;
  away: string;
  fthg: string;
  ftag: string;
  open: [string, string, string];
  close: [string, string, string];
  /** The row as it is in the shared file. */
  raw: string;
}

export const SHARED_HEADER =
  'Date,country,league,Season,HomeTeam,AwayTeam,FTHG,FTAG,HTHG,HTAG,home_close,home_open,draw_close,draw_open,away_close,away_open,over_2.5_close,over_2.5_open,under_2.5_close,under_2.5_open,bts_yes_close,bts_yes_open,bts_no_close,bts_no_open';

/** The rows of one season of test/fixtures/football/england.csv (real data, 2020–2023), by kick-off. */
export function loadSeason(season = '2021-2022'): SeasonRow[] {
  const lines = readFileSync(new URL('../fixtures/football/england.csv', import.meta.url), 'utf8').split(
    /\r?\n/,
  );
  if (lines[0] !== SHARED_HEADER) throw new Error('england.csv changed its header');
  return lines
    .slice(1)
    .filter((l) => l.split(',')[3] === season)
    .map((raw) => {
      const c = raw.split(',');
      return {
        kickoff: new Date(`${c[0].replace(' ', 'T')}Z`),
        home: c[4],
        away: c[5],
        fthg: c[6],
        ftag: c[7],
        open: [c[11], c[13], c[15]],
        close: [c[10], c[12], c[14]],
        raw,
      } satisfies SeasonRow;
    })
    .sort((a, b) => a.kickoff.getTime() - b.kickoff.getTime());
}

/** Rows kicked off before `until`. */
export const playedBy = (rows: readonly SeasonRow[], until: Date) =>
  rows.filter((r) => r.kickoff.getTime() < until.getTime());

/** Rows kicking off in [from, to). */
export const between = (rows: readonly SeasonRow[], from: Date, to: Date) =>
  rows.filter((r) => r.kickoff.getTime() >= from.getTime() && r.kickoff.getTime() < to.getTime());

const LONDON = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'Europe/London',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});

/** `dd/mm/yyyy` and `HH:MM` in London time, as football-data.co.uk writes them. */
function londonDateTime(d: Date): [string, string] {
  const p = Object.fromEntries(LONDON.formatToParts(d).map((x) => [x.type, x.value]));
  return [`${p.day}/${p.month}/${p.year}`, `${p.hour}:${p.minute}`];
}

/** A football-data.co.uk season file (`mmz4281/2122/E0.csv`) of the played rows. */
export function footballDataResults(rows: readonly SeasonRow[]): string {
  const head = 'Div,Date,Time,HomeTeam,AwayTeam,FTHG,FTAG,FTR,AvgH,AvgD,AvgA,AvgCH,AvgCD,AvgCA';
  const body = rows.map((r) => {
    const [date, time] = londonDateTime(r.kickoff);
    const h = Number(r.fthg);
    const a = Number(r.ftag);
    const ftr = h > a ? 'H' : h === a ? 'D' : 'A';
    return ['E0', date, time, r.home, r.away, r.fthg, r.ftag, ftr, ...r.open, ...r.close].join(',');
  });
  return `${[head, ...body].join('\r\n')}\r\n`;
}

/** A football-data.co.uk `fixtures.csv` of upcoming rows with their (opening) prices as the current odds. */
export function footballDataFixtures(rows: readonly SeasonRow[], priceShift = 0): string {
  const head = 'Div,Date,Time,HomeTeam,AwayTeam,AvgH,AvgD,AvgA';
  const body = rows.map((r) => {
    const [date, time] = londonDateTime(r.kickoff);
    const prices = r.open.map((p) => (Number(p) + priceShift).toFixed(2));
    return ['E0', date, time, r.home, r.away, ...prices].join(',');
  });
  return `${[head, ...body].join('\n')}\n`;
}

/** The shared football CSV layout of the rows. */
export function sharedCsv(rows: readonly SeasonRow[]): string {
  return `${[SHARED_HEADER, ...rows.map((r) => r.raw)].join('\n')}\n`;
}

/** An odds-only CSV: the rows' closing prices observed at `at`. */
export function oddsOnlyCsv(rows: readonly SeasonRow[], at: Date): string {
  const head = 'observed_at,region,tournament,kickoff,home_team,away_team,odd_home,odd_draw,odd_away,source';
  const body = rows.map((r) =>
    [
      at.toISOString(),
      'England',
      'Premier League',
      r.kickoff.toISOString(),
      r.home,
      r.away,
      ...r.close,
      'odds-csv',
    ].join(','),
  );
  return `${[head, ...body].join('\n')}\n`;
}

/** A JSON odds feed in the common odds-API shape: two bookmakers per event, h2h and totals 2.5. */
export function oddsApiJson(
  rows: readonly SeasonRow[],
  lastUpdate: Date,
  options: { shiftKickoffMs?: number; rename?: Record<string, string> } = {},
): string {
  const name = (n: string) => options.rename?.[n] ?? n;
  return JSON.stringify(
    rows.map((r, i) => ({
      id: `evt${i}`,
      sport_key: 'soccer_epl',
      sport_title: 'EPL',
      commence_time: new Date(r.kickoff.getTime() + (options.shiftKickoffMs ?? 0)).toISOString(),
      home_team: name(r.home),
      away_team: name(r.away),
      bookmakers: ['a', 'b'].map((key, k) => ({
        key,
        title: key.toUpperCase(),
        last_update: new Date(lastUpdate.getTime() - k * 60_000).toISOString(),
        markets: [
          {
            key: 'h2h',
            last_update: new Date(lastUpdate.getTime() - k * 60_000).toISOString(),
            outcomes: [
              { name: name(r.home), price: Number(r.close[0]) + k * 0.02 },
              { name: name(r.away), price: Number(r.close[2]) + k * 0.02 },
              { name: 'Draw', price: Number(r.close[1]) + k * 0.02 },
            ],
          },
          {
            key: 'totals',
            outcomes: [
              { name: 'Over', price: 1.9, point: 2.5 },
              { name: 'Under', price: 1.95, point: 2.5 },
            ],
          },
        ],
      })),
    })),
  );
}

/** What the test server answers for a path: a body, or a fault. */
export type Published =
  | { body: string | Buffer; etag?: string; lastModified?: string; delayMs?: number }
  | { status: number }
  | { hang: true }
  /** Declares the whole length, sends `sent` bytes, then drops the connection. */
  | { cut: string; sent: number };

/**
 * A local HTTP server publishing files as a source would (node:http): strong ETags and
 * Last-Modified, 304 on a matching If-None-Match / If-Modified-Since, and the faults of `Published`.
 */
export async function sourceServer(): Promise<{
  url: (path: string) => string;
  publish: (path: string, what: Published) => void;
  /** Requests per path, with their conditional headers. */
  requests: { path: string; ifNoneMatch?: string; ifModifiedSince?: string; status: number }[];
  /** Bodies being served at once (a `delayMs` body holds its request). */
  load: { inFlight: number; maxInFlight: number };
  close: () => Promise<void>;
}> {
  const files = new Map<string, Published>();
  let version = 0;
  const requests: { path: string; ifNoneMatch?: string; ifModifiedSince?: string; status: number }[] = [];
  const load = { inFlight: 0, maxInFlight: 0 };
  const server = http.createServer(async (req, res) => {
    const path = req.url ?? '/';
    const what = files.get(path);
    const rec = {
      path,
      ifNoneMatch: req.headers['if-none-match'],
      ifModifiedSince: req.headers['if-modified-since'],
      status: 0,
    };
    requests.push(rec);
    if (!what) {
      rec.status = 404;
      res.writeHead(404).end('not found');
    } else if ('status' in what) {
      rec.status = what.status;
      res.writeHead(what.status).end('error');
    } else if ('hang' in what) {
      rec.status = -1; // never answers; the client's timeout ends it
    } else if ('cut' in what) {
      rec.status = 200;
      const buf = Buffer.from(what.cut);
      res.writeHead(200, { 'content-length': String(buf.length), 'content-type': 'text/csv' });
      res.write(buf.subarray(0, what.sent), () => res.destroy());
    } else {
      const etag = what.etag ?? '';
      if (etag && req.headers['if-none-match'] === etag) {
        rec.status = 304;
        res.writeHead(304, { etag }).end();
        return;
      }
      rec.status = 200;
      load.inFlight++;
      load.maxInFlight = Math.max(load.maxInFlight, load.inFlight);
      if (what.delayMs) await new Promise((r) => setTimeout(r, what.delayMs));
      load.inFlight--;
      const body = Buffer.isBuffer(what.body) ? what.body : Buffer.from(what.body);
      res.writeHead(200, {
        'content-length': String(body.length),
        ...(etag ? { etag } : {}),
        ...(what.lastModified ? { 'last-modified': what.lastModified } : {}),
      });
      res.end(body);
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (p) => `http://127.0.0.1:${port}${p}`,
    publish: (p, what) => {
      version++;
      files.set(
        p,
        'body' in what && what.etag === undefined
          ? {
              ...what,
              etag: `"v${version}"`,
              lastModified: new Date(Date.UTC(2021, 7, 1) + version * 1000).toUTCString(),
            }
          : what,
      );
    },
    requests,
    load,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
