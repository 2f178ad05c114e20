// A raw HTTP/1.1 client over a TCP socket: fetch and node:http refuse to send many of the inputs a fuzz
// needs (non-ASCII header bytes, %00, unnormalised dots, malformed escapes), so requests are written
// as bytes and the response is parsed by hand (content-length or chunked).
import net from 'node:net';

export interface RawRequest {
  method: string;
  /** Request target exactly as sent (not normalised, not re-encoded). */
  target: string;
  headers?: Array<[string, string | Buffer]>;
  body?: Buffer | string;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  ms: number;
}

export class HangError extends Error {}

function decodeChunked(buf: Buffer): Buffer {
  const parts: Buffer[] = [];
  let i = 0;
  while (i < buf.length) {
    const eol = buf.indexOf('\r\n', i);
    if (eol < 0) break;
    const size = Number.parseInt(buf.subarray(i, eol).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(buf.subarray(eol + 2, eol + 2 + size));
    i = eol + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** Sends one request on its own connection; rejects with HangError after `timeoutMs`. */
export function rawRequest(port: number, req: RawRequest, timeoutMs: number): Promise<RawResponse> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let done = false;
    const finish = (err: Error | null, res?: RawResponse) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      if (err) reject(err);
      else resolve(res!);
    };
    const timer = setTimeout(
      () =>
        finish(
          new HangError(
            `no complete response within ${timeoutMs} ms: ${req.method} ${req.target.slice(0, 200)}`,
          ),
        ),
      timeoutMs,
    );
    const tryParse = (ended: boolean) => {
      const all = Buffer.concat(chunks);
      const headEnd = all.indexOf('\r\n\r\n');
      if (headEnd < 0) {
        if (ended) finish(new Error(`connection closed without a response: ${req.target.slice(0, 200)}`));
        return;
      }
      const head = all.subarray(0, headEnd).toString('latin1').split('\r\n');
      const status = Number(head[0]!.split(' ')[1]);
      const headers: Record<string, string> = {};
      for (const line of head.slice(1)) {
        const c = line.indexOf(':');
        if (c > 0) headers[line.slice(0, c).trim().toLowerCase()] = line.slice(c + 1).trim();
      }
      const rest = all.subarray(headEnd + 4);
      const ms = performance.now() - started;
      if (headers['content-length'] !== undefined) {
        const n = Number(headers['content-length']);
        if (rest.length >= n || req.method === 'HEAD')
          finish(null, { status, headers, body: rest.subarray(0, n), ms });
        else if (ended) finish(new Error(`truncated body: ${req.target.slice(0, 200)}`));
      } else if (headers['transfer-encoding']?.includes('chunked')) {
        if (rest.includes('0\r\n\r\n') || ended)
          finish(null, { status, headers, body: decodeChunked(rest), ms });
      } else if (ended) {
        finish(null, { status, headers, body: rest, ms });
      }
    };
    socket.on('data', (d) => {
      chunks.push(d);
      tryParse(false);
    });
    socket.on('end', () => tryParse(true));
    socket.on('close', () => tryParse(true));
    socket.on('error', (err) => {
      // The server may answer (e.g. 413) and close while the body is still being written.
      if (chunks.length > 0) tryParse(true);
      else finish(err);
    });
    socket.on('connect', () => {
      const body =
        req.body === undefined ? undefined : Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body);
      const lines: Buffer[] = [
        Buffer.from(
          `${req.method} ${req.target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n`,
          'latin1',
        ),
      ];
      for (const [k, v] of req.headers ?? []) {
        lines.push(
          Buffer.concat([
            Buffer.from(`${k}: `, 'latin1'),
            Buffer.isBuffer(v) ? v : Buffer.from(v, 'latin1'),
            Buffer.from('\r\n'),
          ]),
        );
      }
      if (body) lines.push(Buffer.from(`Content-Length: ${body.length}\r\n`));
      lines.push(Buffer.from('\r\n'));
      if (body) lines.push(body);
      socket.write(Buffer.concat(lines));
    });
  });
}
