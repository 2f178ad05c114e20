import type { Worker } from 'node:worker_threads';
import { siblingModule, startModuleThread } from '../domain/index.js';
import type { BuildJob, BuiltViews } from './view-build.js';
import { type FromBuilder, type ToBuilder, unpackViews } from './view-wire.js';

const VIEW_BUILDER_ENTRY = siblingModule(import.meta.url, './view-builder-thread');

interface Pending {
  /** The thread running the build: its end fails this build only. */
  thread: Worker;
  resolve(v: BuiltViews): void;
  reject(err: Error): void;
}

/** An idle isolate never collects a build's garbage, so an idle thread is ended; a burst keeps one thread. */
const BUILDER_IDLE_MS = 3_000;

/** A build makes mostly short-lived strings and rows: a small young generation keeps its heap small. */
const BUILDER_LIMITS = { maxYoungGenerationSizeMb: 6 };

/** The serving side of the builder thread: a stopped thread fails its builds and restarts on the next. */
export class ViewBuilder {
  private thread: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private seq = 0;
  private closed = false;
  private idleTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly entry: URL = VIEW_BUILDER_ENTRY,
    private readonly idleMs = BUILDER_IDLE_MS,
  ) {}

  /** Whether a builder thread is up (started by a build, ended when idle or closed). */
  get running(): boolean {
    return this.thread !== null;
  }

  build(job: BuildJob): Promise<BuiltViews> {
    if (this.closed) return Promise.reject(new Error('the view builder is closed'));
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    const thread = this.thread ?? this.spawn();
    const id = ++this.seq;
    const done = new Promise<BuiltViews>((resolve, reject) =>
      this.pending.set(id, { thread, resolve, reject }),
    );
    thread.ref();
    thread.postMessage({ t: 'build', id, job } satisfies ToBuilder);
    return done.finally(() => {
      if (this.pending.size === 0 && this.thread === thread) {
        thread.unref();
        this.idleTimer = setTimeout(() => this.endIdle(thread), this.idleMs);
        this.idleTimer.unref();
      }
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    const thread = this.thread;
    this.thread = null;
    if (thread) await thread.terminate();
  }

  private endIdle(thread: Worker): void {
    if (this.thread !== thread || this.pending.size > 0) return;
    // Its exit event finds no build of its own to fail.
    this.thread = null;
    void thread.terminate();
  }

  private spawn(): Worker {
    const thread = startModuleThread(this.entry, {}, BUILDER_LIMITS);
    this.thread = thread;
    let reason: string | undefined;
    thread.on('message', (msg: FromBuilder) => {
      if (msg.t === 'init-error') {
        reason = msg.message;
        return;
      }
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      if (msg.t === 'built') p.resolve(unpackViews(msg.views));
      else p.reject(new Error(msg.error));
    });
    thread.on('error', (err) => {
      reason ??= err.message;
    });
    thread.on('exit', (code) => {
      if (this.thread === thread) this.thread = null;
      const err = new Error(
        `the view-builder thread stopped (exit code ${code})${reason ? `: ${reason}` : ''}`,
      );
      for (const [id, p] of this.pending) {
        if (p.thread !== thread) continue;
        this.pending.delete(id);
        p.reject(err);
      }
    });
    thread.unref();
    return thread;
  }
}
