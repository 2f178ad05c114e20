import type { onSendHookHandler } from 'fastify';

let held: (() => void)[] = [];

function release(): void {
  const now = held;
  held = [];
  for (const send of now) send();
}

/**
 * Holds a response to the end of the event-loop turn: each write wakes its client, which on a small host
 * takes the server's CPU. Not for the live path, whose queue replies share the turn (docs/benchmarks.md).
 */
export const holdUntilTurnEnd: onSendHookHandler = (_request, _reply, payload, done) => {
  if (held.length === 0) setImmediate(release);
  held.push(() => done(null, payload));
};
