import cliProgress from 'cli-progress';
import type { Logger } from '../logger.js';

/** One unit of work inside a stage (a bar on a terminal, one log line otherwise). */
interface ProgressStep {
  tick(n?: number): void;
  /** Ends the step; `fields` go into its log line. */
  done(fields?: Record<string, unknown>): void;
}

export interface Progress {
  /** Starts a step of `total` units of the stage `stage`. */
  step(stage: string, name: string, total: number): ProgressStep;
}

/**
 * A command's terminal (stderr): bars and lines, never interleaved. A line written while a bar runs goes
 * above it (`MultiBar.log`, flushed at the next redraw); once no bar runs, lines are written at once.
 */
export class TerminalOutput {
  private bars: cliProgress.MultiBar | null = null;
  private running = 0;

  constructor(private readonly stream: NodeJS.WriteStream = process.stderr) {}

  line(text: string): void {
    if (this.bars) this.bars.log(`${text}\n`);
    else this.stream.write(`${text}\n`);
  }

  /** Progress bars, one per running step, each replaced by a `✓ stage/step` line when done. */
  progress(): Progress {
    return {
      step: (stage, name, total) => {
        const started = performance.now();
        this.bars ??= new cliProgress.MultiBar(
          {
            stream: this.stream,
            format: '{label} [{bar}] {percentage}% | {value}/{total} | {duration_formatted}',
            hideCursor: true,
            clearOnComplete: true,
            etaBuffer: 50,
          },
          cliProgress.Presets.shades_classic,
        );
        const bars = this.bars;
        const bar = bars.create(Math.max(1, total), 0, { label: `${stage}/${name}` });
        this.running++;
        let value = 0;
        let finished = false;
        return {
          tick(n = 1) {
            value += n;
            bar.update(value);
          },
          done: (fields = {}) => {
            if (finished) return;
            finished = true;
            bar.update(Math.max(1, total));
            bar.stop();
            const ms = Math.round(performance.now() - started);
            const extra = Object.entries(fields)
              .filter(([, v]) => v !== undefined)
              .map(
                ([k, v]) =>
                  `${k}=${typeof v === 'number' && !Number.isInteger(v) ? v.toFixed(4) : String(v)}`,
              )
              .join(' ');
            this.line(`✓ ${stage}/${name} ${ms} ms ${extra}`.trimEnd());
            if (--this.running === 0 && this.bars === bars) {
              // The last bar ended: flush the lines logged above it, clear it, and write directly again.
              bars.update();
              bars.stop();
              this.bars = null;
            }
          },
        };
      },
    };
  }
}

let stderrOutput: TerminalOutput | undefined;

/** The process's one {@link TerminalOutput} on stderr, shared by its bars and human log lines. */
export function stderrTerminal(): TerminalOutput {
  stderrOutput ??= new TerminalOutput(process.stderr);
  return stderrOutput;
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
        done(fields = {}) {
          log.info(
            {
              stage,
              step: name,
              total,
              // A step's total can be an estimate (the backtest's folds): the line says what was done.
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
export const silentProgress: Progress = { step: () => ({ tick() {}, done() {} }) };

/** Bars when stderr is a terminal, JSON log lines otherwise. */
export function autoProgress(log: Logger): Progress {
  return process.stderr.isTTY ? stderrTerminal().progress() : logProgress(log);
}
