import type { AppContext } from './context.js';
import { forgetRegisteredModel, sampleRegisteredModel } from './routes/live.js';

/** Samples `model_info` every `everyMs`, so it has a series before the first live call (spec §4.2). */
export function startModelInfoSampler(ctx: AppContext, options: { everyMs?: number } = {}): () => void {
  let stopped = false;
  let running = false;
  const sample = async (): Promise<void> => {
    if (running || stopped) return;
    running = true;
    try {
      const [aliases, workers] = await Promise.all([
        ctx.registry.aliases(),
        ctx.queue.workers().catch(() => []),
      ]);
      for (const stage of ['champion', 'challenger'] as const) {
        const version = aliases[stage];
        if (version === undefined) {
          // The alias was removed: no live model for the stage, so no sample claiming one.
          forgetRegisteredModel(stage);
          continue;
        }
        const loaded = workers.some((w) => w.models?.[stage]?.version === version);
        sampleRegisteredModel({ model_name: ctx.registry.modelName, version, stage }, loaded);
      }
    } catch {
      // registry unreachable: keep the last sample
    } finally {
      running = false;
    }
  };
  void sample();
  const timer = setInterval(() => void sample(), options.everyMs ?? 15_000);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
