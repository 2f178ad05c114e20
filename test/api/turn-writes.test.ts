// Responses held to the end of the event-loop turn: none leaves inside its handler's turn, every one
// leaves by the end of it, and under concurrent load on real sockets each client gets its own answer
// (string, Buffer, stream, thrown error, 404) with nothing lost or swapped.
import assert from 'node:assert/strict';
import { Agent, request as httpRequest } from 'node:http';
import { Readable } from 'node:stream';
import { after, before, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { holdUntilTurnEnd } from '../../src/api/plugins/turn-writes.js';

let app: FastifyInstance;
let port = 0;
/** What each `/held` request saw of its own response: ended at send, ended once its turn was over. */
const seen: { atSend: boolean; afterTurn: boolean }[] = [];

before(async () => {
  app = Fastify();
  app.addHook('onSend', holdUntilTurnEnd);
  app.get('/held', (_request, reply) => {
    reply.send('held');
    const atSend = reply.raw.writableEnded;
    // Queued after the hook's own setImmediate: runs once the turn's responses have left.
    setImmediate(() => seen.push({ atSend, afterTurn: reply.raw.writableEnded }));
  });
  app.get('/text/:n', async (request) => `text ${(request.params as { n: string }).n}`);
  app.get('/bytes/:n', (request, reply) => {
    reply.type('application/octet-stream').send(Buffer.from(`bytes ${(request.params as { n: string }).n}`));
  });
  app.get('/stream/:n', (request, reply) => {
    const n = (request.params as { n: string }).n;
    reply.type('text/plain').send(Readable.from([`stream `, n]));
  });
  app.get('/fail/:n', async (request) => {
    throw Object.assign(new Error(`fail ${(request.params as { n: string }).n}`), { statusCode: 409 });
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const a = app.server.address();
  port = typeof a === 'object' && a ? a.port : 0;
});
after(async () => app.close());

function get(path: string, agent: Agent): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => {
        body += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('a response leaves at the end of its turn, not inside its handler', async () => {
  const res = await app.inject('/held');
  assert.equal(res.statusCode, 200);
  assert.equal(res.body, 'held');
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(seen.at(-1), { atSend: false, afterTurn: true });
});

test('concurrent requests on kept-alive sockets each get their own answer', async () => {
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  try {
    const kinds = ['text', 'bytes', 'stream', 'fail', 'nope'] as const;
    const calls = Array.from({ length: 400 }, (_, i) => {
      const kind = kinds[i % kinds.length]!;
      return get(`/${kind}/${i}`, agent).then((r) => ({ ...r, kind, i }));
    });
    for (const { kind, i, status, body } of await Promise.all(calls)) {
      if (kind === 'nope') assert.equal(status, 404);
      else if (kind === 'fail') {
        assert.equal(status, 409);
        assert.equal(JSON.parse(body).message, `fail ${i}`);
      } else {
        assert.equal(status, 200);
        assert.equal(body, `${kind} ${i}`);
      }
    }
  } finally {
    agent.destroy();
  }
});
