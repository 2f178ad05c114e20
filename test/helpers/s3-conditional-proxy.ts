import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** An upstream answer, read whole. */
export interface RelayedResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/**
 * Sends one request to `127.0.0.1:port` and reads the whole answer. A fresh connection each time: a
 * reused keep-alive socket that s3rver closes at that moment fails the request, and a failed
 * read-after-write check would answer 502 for a PUT that landed.
 */
export function relay(
  port: number,
  method: string,
  path: string,
  headers: http.OutgoingHttpHeaders,
  body: Buffer | null,
): Promise<RelayedResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on('error', reject);
    });
    req.setTimeout(10_000, () => req.destroy(new Error('upstream timeout')));
    req.on('error', reject);
    req.end(body ?? undefined);
  });
}

/**
 * A fault for the `n`th conditional PUT whose precondition holds (1-based): `drop` cuts the connection
 * without forwarding it; `lose-answer` forwards it (it lands) and cuts the connection before the
 * answer; `error-after` forwards it and answers 500 InternalError, as S3 may after a write. Both
 * wait `holdMs` before failing.
 */
export type ConditionalPutFault = (n: number) => 'drop' | 'lose-answer' | 'error-after' | undefined;

/**
 * An HTTP proxy in front of s3rver that gives it the conditional writes AWS S3, MinIO and R2 have
 * (s3rver 3.7 ignores `If-None-Match` / `If-Match`): every PUT and DELETE of one path is serialised
 * here, and a conditional PUT first compares the object's current etag (an unsigned HEAD) and
 * answers 412 PreconditionFailed as S3 does. All test processes talk to the one proxy, so the
 * semantics are exact between processes too. Requests are forwarded byte for byte (the Host header
 * stays the one the client signed).
 *
 * s3rver answers a streamed PUT before its file write has landed (it resolves on its hashing
 * stream's finish, not the file's), so a read right after could pair the old bytes with the new
 * etag and let a stale compare-and-swap through. S3 has read-after-write consistency: here every
 * request of a path is serialised, and a PUT is answered only once a read returns its bytes.
 */
export async function startConditionalProxy(
  upstreamPort: number,
  options: { fault?: ConditionalPutFault; holdMs?: number } = {},
): Promise<{ endpoint: string; fired: Record<string, number>; close(): Promise<void> }> {
  let conditionalPuts = 0;
  const fired: Record<string, number> = {};
  const queues = new Map<string, Promise<void>>();
  const sockets = new Set<import('node:net').Socket>();

  /** Runs `fn` after every earlier mutation of the same path. */
  async function serialised(path: string, fn: () => Promise<void>): Promise<void> {
    const prev = queues.get(path) ?? Promise.resolve();
    const run = prev.then(fn, fn);
    const tail = run.catch(() => undefined);
    queues.set(path, tail);
    try {
      await run;
    } finally {
      if (queues.get(path) === tail) queues.delete(path);
    }
  }

  const upstream = (method: string, path: string, headers: http.OutgoingHttpHeaders, body: Buffer | null) =>
    relay(upstreamPort, method, path, headers, body);

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const method = req.method ?? 'GET';
      const path = req.url ?? '/';
      const objectPath = path.split('?')[0];
      const forward = async (): Promise<void> => {
        const ifNoneMatch = req.headers['if-none-match'];
        const ifMatch = req.headers['if-match'];
        if (method === 'PUT' && (ifNoneMatch !== undefined || ifMatch !== undefined)) {
          const cur = await upstream('HEAD', objectPath, { host: req.headers.host }, null);
          const etag = cur.status === 200 ? String(cur.headers.etag ?? '') : null;
          const strip = (e: string) => e.replace(/^W\//, '').replace(/^"|"$/g, '');
          const failed =
            (ifNoneMatch === '*' && etag !== null) ||
            (ifMatch !== undefined && (etag === null || strip(etag) !== strip(String(ifMatch))));
          if (failed) {
            res.writeHead(412, { 'content-type': 'application/xml' });
            res.end(
              '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>PreconditionFailed</Code>' +
                '<Message>At least one of the pre-conditions you specified did not hold</Message></Error>',
            );
            return;
          }
        }
        const fault =
          method === 'PUT' && (ifNoneMatch !== undefined || ifMatch !== undefined)
            ? options.fault?.(++conditionalPuts)
            : undefined;
        if (fault) fired[fault] = (fired[fault] ?? 0) + 1;
        if (fault === 'drop') {
          req.socket.destroy();
          return;
        }
        const up = await upstream(method, path, req.headers, body.length > 0 ? body : null);
        if (method === 'PUT' && up.status === 200 && up.headers.etag) {
          const want = String(up.headers.etag).replace(/^W\//, '').replace(/^"|"$/g, '');
          for (let i = 0; i < 200; i++) {
            const cur = await upstream('GET', objectPath, { host: req.headers.host }, null);
            if (cur.status === 200 && createHash('md5').update(cur.body).digest('hex') === want) break;
            await new Promise((r) => setTimeout(r, 5));
          }
        }
        // The lost answer is held back outside the path's queue, so a rival can write on top first.
        if (fault === 'lose-answer') {
          setTimeout(() => req.socket.destroy(), options.holdMs ?? 0);
          return;
        }
        if (fault === 'error-after') {
          setTimeout(() => {
            res.writeHead(500, { 'content-type': 'application/xml' });
            res.end(
              '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>InternalError</Code><Message>test fault</Message></Error>',
            );
          }, options.holdMs ?? 0);
          return;
        }
        res.writeHead(up.status, up.headers);
        res.end(up.body);
      };
      serialised(objectPath, forward).catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(String(err));
      });
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    fired,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
