/**
 * "Now" for the pipeline, ingest and serving. The wall clock in production; a replay clock
 * (`matchcast start --as-of … --speed N`) runs the service as if "now" were an earlier date and
 * advances N times faster than the wall clock, so that a past season can be lived again.
 */
export interface Clock {
  /** The current instant as this clock sees it. */
  now(): Date;
  /** False for the wall clock; true for a replay (its "now" is not the machine's). */
  readonly simulated: boolean;
}

/** The machine's clock. */
export const systemClock: Clock = { now: () => new Date(), simulated: false };

interface ReplayClockOptions {
  /** The instant the replay starts at. */
  start: Date;
  /** Simulated seconds per wall-clock second; `0` freezes the clock at `start`. Default `1`. */
  speed?: number;
  /** Wall clock in ms (tests). Default `Date.now`. */
  wallNow?: () => number;
}

/** A replay clock and what it was started with. */
interface ReplayClock extends Clock {
  readonly start: Date;
  readonly speed: number;
}

/** A clock that starts at `start` and runs `speed` times faster than the wall clock. */
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
