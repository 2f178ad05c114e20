import type { Worker } from 'node:worker_threads';
import { siblingModule, startModuleThread } from '../domain/index.js';
import type { BuildJob, BuiltViews } from './view-build.js';
import { type FromBuilder, type ToBuilder, unpackViews } from './view-wire.js';

/** The builder thread stopped (crashed, killed, or failed to load) while a build was running. */
export class ViewBuilderStopped extends Error {
  constructor(
    readonly exitCode: number,
    reason: string | undefined,
  ) {
    super(`the view-builder thread stopped (exit code ${exitCode})${reason ? `: ${reason}` : ''}`);
    this.name = 'ViewBuilderStopped';
  }
}

/** The thread module run by default: the compiled or source sibling of this file. */
export const VIEW_BUILDER_ENTRY = siblingModule(import.meta.url, './view-builder-thread');

interface Pending {
  resolve(v: BuiltViews): void;
  reject(err: Error): void;
}

/**
 * The serving side of the long-lived view-builder thread: `build` hands it a job and resolves with
 * ready-to-serve views. A thread that stops fails the builds it was running and is started again on
 * the next build. While no build runs the thread does not keep the process alive.
 */
export class ViewBuilder {
  private thread: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private seq = 0;
  private closed = false;

  constructor(private readonly entry: URL = VIEW_BUILDER_ENTRY) {}

  build(job: BuildJob): Promise<BuiltViews> {
    if (this.closed) return Promise.reject(new Error('the view builder is closed'));
    const thread = this.thread ?? this.spawn();
    const id = ++this.seq;
    const done = new Promise<BuiltViews>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    thread.ref();
    thread.postMessage({ t: 'build', id, job } satisfies ToBuilder);
    return done.finally(() => {
      if (this.pending.size === 0 && this.thread === thread) thread.unref();
    });
  }

  /** Stops the thread; a running build fails. */
  async close(): Promise<void> {
    this.closed = true;
    const thread = this.thread;
    this.thread = null;
    if (thread) await thread.terminate();
  }

  private spawn(): Worker {
    const thread = startModuleThread(this.entry, {});
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
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    });
    thread.unref();
    return thread;
  }
}
