/**
 * "Now" for the pipeline, ingest and serving: the wall clock in production, or a replay clock
 * (`matchcast start --as-of … --speed N`) that lives a past season again N times faster.
 */
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
  /** Wall clock in ms (tests). Default `Date.now`. */
  wallNow?: () => number;
}

interface ReplayClock extends Clock {
  readonly start: Date;
  readonly speed: number;
}

export function replayClock(options: ReplayClockOptions): ReplayClock {
  const speed = options.speed ?? 1;
  if (!Number.isFinite(speed) || speed < 0) throw new RangeError(`replay speed must be ≥ 0, got ${speed}`);
  const wallNow = options.wallNow ?? Date.now;
  const wallStart = wallNow();
  const startMs = options.start.getTime();
  return {
    simulated: true,
    start: new Date(startMs),
    speed,
    now: () => new Date(startMs + Math.max(0, wallNow() - wallStart) * speed),
  };
}
