import cliProgress from 'cli-progress';
import type { Logger } from '../logger.js';

/** One unit of work inside a stage (a bar on a terminal, one log line otherwise). */
export interface ProgressStep {
  /** Advances by `n` units (default 1). */
  tick(n?: number): void;
  /** Sets the absolute count of finished units. */
  update(done: number): void;
  /** Ends the step; `fields` go into its log line. */
  done(fields?: Record<string, unknown>): void;
}

/** How stages report progress. */
export interface Progress {
  /** Starts a step of `total` units of the stage `stage`. */
  step(stage: string, name: string, total: number): ProgressStep;
}

/**
 * A progress bar per step on stderr (cli-progress). Used when stderr is a terminal; the bar is
 * cleared at the end and replaced by a one-line summary.
 */
export function terminalProgress(stream: NodeJS.WriteStream = process.stderr): Progress {
  return {
    step(stage, name, total) {
      const started = performance.now();
      const bar = new cliProgress.SingleBar(
        {
          stream,
          format: `${stage}/${name} [{bar}] {percentage}% | {value}/{total} | {duration_formatted}`,
          hideCursor: true,
          clearOnComplete: true,
          etaBuffer: 50,
        },
        cliProgress.Presets.shades_classic,
      );
      bar.start(Math.max(1, total), 0);
      let value = 0;
      return {
        tick(n = 1) {
          value += n;
          bar.update(value);
        },
        update(done) {
          value = done;
          bar.update(value);
        },
        done(fields = {}) {
          bar.update(Math.max(1, total));
          bar.stop();
          const ms = Math.round(performance.now() - started);
          const extra = Object.entries(fields)
            .map(
              ([k, v]) => `${k}=${typeof v === 'number' && !Number.isInteger(v) ? v.toFixed(4) : String(v)}`,
            )
            .join(' ');
          stream.write(`✓ ${stage}/${name} ${ms} ms ${extra}\n`);
        },
      };
    },
  };
}

/** One structured JSON log line per finished step (pino); no bars. Used when not on a terminal. */
export function logProgress(log: Logger): Progress {
  return {
    step(stage, name, total) {
      const started = performance.now();
      let value = 0;
      return {
        tick(n = 1) {
          value += n;
        },
        update(done) {
          value = done;
        },
        done(fields = {}) {
          log.info(
            {
              stage,
              step: name,
              total,
              done: Math.max(value, total),
              duration_ms: Math.round(performance.now() - started),
              ...fields,
            },
            `${stage}/${name} done`,
          );
        },
      };
    },
  };
}

/** Reports nothing (tests, library callers). */
export const silentProgress: Progress = {
  step: () => ({ tick() {}, update() {}, done() {} }),
};

/** Bars when stderr is a terminal, JSON log lines otherwise. */
export function autoProgress(log: Logger): Progress {
  return process.stderr.isTTY ? terminalProgress() : logProgress(log);
}
