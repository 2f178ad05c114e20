/** "Now" for the pipeline, ingest and serving: the wall clock, or a replay clock (`start --as-of … --speed N`). */
export interface Clock {
  now(): Date;
  /** True for a replay (its "now" is not the machine's). */
  readonly simulated: boolean;
}

export const systemClock: Clock = { now: () => new Date(), simulated: false };

interface ReplayClockOptions {
  start: Date;
  /** Simulated seconds per wall-clock second; `0` freezes the clock at `start`. Default `1`. */
  speed?: number;
  wallNow?: () => number;
}

export function replayClock(options: ReplayClockOptions): Clock {
  const speed = options.speed ?? 1;
  if (!Number.isFinite(speed) || speed < 0) throw new RangeError(`replay speed must be ≥ 0, got ${speed}`);
  const wallNow = options.wallNow ?? Date.now;
  const wallStart = wallNow();
  const startMs = options.start.getTime();
  return { simulated: true, now: () => new Date(startMs + Math.max(0, wallNow() - wallStart) * speed) };
}
