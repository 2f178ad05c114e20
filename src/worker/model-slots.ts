import { type ErrorCode, isMatchcastError, MatchcastError, type ServableStage } from '../domain/index.js';
import type { Logger } from '../logger.js';
import type { ModelVersion } from '../registry/index.js';
import type { LoadedModel, Predictor, WorkerRegistry } from './types.js';

interface Slot<P> {
  model: LoadedModel<P>;
  checkedAt: number;
  /** Run ids this stage pointed at before: a caller's hint naming one of them is stale, not new. */
  previous: Set<string>;
}

/** A worker's model per stage, loaded on first use and re-resolved at most every `refreshMs` (spec §3.4). */
// A failing refresh keeps the loaded model (spec §7: a running worker keeps serving).
export class ModelSlots<P = Predictor> {
  private readonly slots = new Map<ServableStage, Slot<P>>();
  private readonly inflight = new Map<ServableStage, Promise<LoadedModel<P>>>();
  /** Predictors by run id, so champion and challenger on the same run share one. */
  private readonly predictors = new Map<string, { predict: P; loadedAt: number }>();

  /** `missingCode`: the error when no version has the alias (the 1X2 stages answer 400 as the API does). */
  constructor(
    private readonly registry: WorkerRegistry,
    private readonly loadPredictor: (version: ModelVersion) => Promise<P>,
    private readonly refreshMs: number,
    private readonly log: Logger,
    private readonly missingCode: ErrorCode,
  ) {}

  /** `wantRunId` (the API's resolved run) re-resolves when new to this stage: a promotion serves at once. */
  async get(stage: ServableStage, wantRunId?: string): Promise<LoadedModel<P>> {
    const slot = this.slots.get(stage);
    if (!slot) return this.refresh(stage);
    const current = slot.model.version.run_id;
    if (wantRunId && wantRunId !== current && !slot.previous.has(wantRunId)) {
      return this.refreshFor(stage, wantRunId).catch(() => slot.model);
    }
    if (Date.now() - slot.checkedAt >= this.refreshMs) this.refresh(stage).catch(() => undefined);
    return slot.model;
  }

  /** Models loaded now, by stage (for presence and model_info). */
  loaded(): Record<string, { version: string; run_id: string }> {
    const pick = ({ model: { version: v } }: Slot<P>) => ({ version: v.version, run_id: v.run_id });
    return Object.fromEntries([...this.slots].map(([stage, slot]) => [stage, pick(slot)]));
  }

  /** A refresh already in flight may have read the registry before the move: read it once more. */
  private async refreshFor(stage: ServableStage, wantRunId: string): Promise<LoadedModel<P>> {
    const first = await this.refresh(stage);
    return first.version.run_id === wantRunId ? first : this.refresh(stage);
  }

  private refresh(stage: ServableStage): Promise<LoadedModel<P>> {
    let p = this.inflight.get(stage);
    if (!p) {
      p = this.doRefresh(stage).finally(() => this.inflight.delete(stage));
      this.inflight.set(stage, p);
    }
    return p;
  }

  private async doRefresh(stage: ServableStage): Promise<LoadedModel<P>> {
    const slot = this.slots.get(stage);
    const keep = (s: Slot<P>) => {
      s.checkedAt = Date.now();
      return s.model;
    };
    let version: ModelVersion | null;
    try {
      version = await this.registry.resolve(stage);
    } catch (err) {
      if (slot) {
        this.log.warn({ stage, err: errText(err) }, 'registry unreachable; keeping the loaded model');
        return keep(slot);
      }
      throw new MatchcastError('MC_ERR_MODEL_UNAVAILABLE', `Model registry unreachable: ${errText(err)}`, {
        cause: err,
      });
    }
    // An alias removed: the API answers 400 for it; keep serving rather than fail mid-flight.
    if (!version && slot) return keep(slot);
    if (!version)
      throw new MatchcastError(
        this.missingCode,
        `No ${this.registry.modelName} version has the alias ${stage}`,
      );
    if (slot && slot.model.version.run_id === version.run_id) return keep(slot);
    let entry = this.predictors.get(version.run_id);
    if (!entry) {
      const started = performance.now();
      try {
        entry = { predict: await this.loadPredictor(version), loadedAt: Date.now() / 1000 };
      } catch (err) {
        if (slot) {
          this.log.error(
            { stage, version: version.version, err: errText(err) },
            'model load failed; keeping the old one',
          );
          return keep(slot);
        }
        if (isMatchcastError(err)) throw err;
        throw new MatchcastError(
          'MC_ERR_MODEL_UNAVAILABLE',
          `Model ${version.version} failed to load: ${errText(err)}`,
        );
      }
      this.predictors.set(version.run_id, entry);
      const ms = Math.round(performance.now() - started);
      this.log.info({ stage, version: version.version, run_id: version.run_id, ms }, 'model loaded');
    }
    const model: LoadedModel<P> = { stage, version, predict: entry.predict, loadedAt: entry.loadedAt };
    const previous = slot?.previous ?? new Set<string>();
    if (slot) previous.add(slot.model.version.run_id);
    previous.delete(version.run_id);
    this.slots.set(stage, { model, checkedAt: Date.now(), previous });
    const used = new Set([...this.slots.values()].map((s) => s.model.version.run_id));
    for (const runId of this.predictors.keys()) if (!used.has(runId)) this.predictors.delete(runId);
    return model;
  }
}

function errText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
