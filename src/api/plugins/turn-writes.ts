import type { FastifyInstance, onSendHookHandler } from 'fastify';

/**
 * Holds every response until the end of the event-loop turn (`setImmediate`), so that the answers
 * to the requests one turn read leave back to back instead of between the next requests' handlers.
 * Each write that finds its client asleep wakes it, and on a small host the woken client takes the
 * server's CPU away; written together, they cost one such switch a turn. Measured on the precomputed
 * route: server CPU per request 73 → 52 µs, throughput 55 → 80 % of a bare server's
 * (docs/benchmarks.md). A lone request waits for nothing but the rest of its own turn.
 */
export function registerTurnWrites(app: FastifyInstance): void {
  let held: (() => void)[] = [];
  const release = () => {
    const now = held;
    held = [];
    for (const send of now) send();
  };
  const hold: onSendHookHandler = (_request, _reply, payload, done) => {
    if (held.length === 0) setImmediate(release);
    held.push(() => done(null, payload));
  };
  app.addHook('onSend', hold);
}
