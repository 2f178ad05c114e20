import { type PollOutcome, pollSource } from './poll.js';
import { SourcesRepository } from './sources-repository.js';
import type { SourceDeps } from './types.js';

interface SourceScheduleOptions {
  deps: SourceDeps;
  /** Runs one poll (the embedded server puts it on its one-at-a-time job lane). */
  run: (name: string, poll: () => Promise<PollOutcome>) => Promise<PollOutcome>;
  now?: () => Date;
  /** Wall-clock interval between checks for due sources, ms. Default `5000`. */
  checkMs?: number;
}

/** Polls the due sources one at a time every `checkMs`; a check while the last one runs is skipped. */
export function startSourceSchedule(options: SourceScheduleOptions): { stop(): Promise<void> } {
  const { deps, run } = options;
  const now = options.now ?? (() => new Date());
  let running: Promise<void> | null = null;
  let stopped = false;
  const check = async () => {
    const due = await new SourcesRepository(deps.db).due(now());
    for (const name of due) {
      if (stopped) return;
      await run(name, () => pollSource(deps, name, { now: now() }));
    }
  };
  const timer = setInterval(() => {
    if (running || stopped) return;
    running = check()
      .catch((err: unknown) =>
        deps.log?.warn({ err: (err as Error).message }, 'sources: scheduled check failed'),
      )
      .finally(() => {
        running = null;
      });
  }, options.checkMs ?? 5000);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
