import type { Worker } from 'node:worker_threads';
import { siblingModule, startModuleThread } from '../domain/index.js';
import type { BuildJob, BuiltViews } from './view-build.js';
import { type FromBuilder, type ToBuilder, unpackViews } from './view-wire.js';

/** The builder thread stopped (crashed, killed, or failed to load) while a build was running. */
class ViewBuilderStopped extends Error {
  constructor(
    readonly exitCode: number,
    reason: string | undefined,
  ) {
    super(`the view-builder thread stopped (exit code ${exitCode})${reason ? `: ${reason}` : ''}`);
    this.name = 'ViewBuilderStopped';
  }
}

/** The thread module run by default: the compiled or source sibling of this file. */
const VIEW_BUILDER_ENTRY = siblingModule(import.meta.url, './view-builder-thread');

interface Pending {
  /** The thread running the build: its end fails this build only. */
  thread: Worker;
  resolve(v: BuiltViews): void;
  reject(err: Error): void;
}

/**
 * How long the builder thread stays up without a build. A build leaves ~100 MB of garbage in the
 * thread's heap that an idle isolate never collects; ending the thread returns all of it, so memory
 * is back at rest a few seconds after each publication. A burst of runs (a replay, a fast feed)
 * keeps one thread; a new one starts in ~0.4 s on another core.
 */
const BUILDER_IDLE_MS = 3_000;

/**
 * A build makes mostly short-lived strings and rows. With V8's default young generation the
 * thread's heap grew to ~90 MB per build; a 6 MB one keeps it at 20–40 MB (a replay's server peak
 * 501 -> 472 MB), for more scavenges on the thread that builds, off the serving thread.
 */
const BUILDER_LIMITS = { maxYoungGenerationSizeMb: 6 };

/**
 * The serving side of the long-lived view-builder thread: `build` hands it a job and resolves with
 * ready-to-serve views. A thread that stops fails the builds it was running and is started again on
 * the next build; one idle for `idleMs` is ended. While no build runs the thread does not keep the
 * process alive.
 */
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

  /** Whether a builder thread is up (started by a build, ended when idle, stopped or closed). */
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

  /** Stops the thread; a running build fails. */
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
      const err = new ViewBuilderStopped(code, reason);
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
