import { recordServedFromPublished } from '../analytics/index.js';
import { MatchcastError } from '../domain/index.js';
import { evaluateGates } from '../pipeline/index.js';
import { createRegistry } from '../registry/index.js';
import {
  type GateResult,
  listRuns,
  markAbandonedRuns,
  pruneRuns,
  type RunRecord,
  RunWriter,
  readPublished,
  readRunHistory,
  readRunRecord,
  rollbackRun,
} from '../runs/index.js';
import { parseStoreArgs, runOnStore, type StoreCommandIo, writersOf } from './command-io.js';
import { tableOf } from './registry.js';

const USAGE = `Usage: matchcast runs <command> [--json]

  list                   every pipeline run: status, kind, as-of, gates, which one is published
  show <run_id>          one run: stages, gates and their figures, artifacts, publications
  publish <run_id>       gate and publish a draft (stand-alone stages) or rejected run
  rollback <run_id>      serve an earlier complete run again (one compare-and-swap)
  history                the append-only log of publications and rollbacks
  prune                  apply retention now (RUNS_KEEP)

Options:
  --json             machine-readable output
  --force            publish/rollback although a gate failed or the champion's feature
                     fingerprint differs (recorded in the run and the history)
  --actor <name>     who is acting (default: $USER)
  --reason <text>    recorded in the history with the move

Exit codes: 0 ok, 1 failure, 2 usage error, 3 a gate failed (nothing published).`;

function gatesText(gates: readonly GateResult[]): string {
  if (gates.length === 0) return '  (no gates evaluated)\n';
  return gates.map((g) => `  ${g.passed ? 'pass' : 'FAIL'}  ${g.name}: ${g.message}\n`).join('');
}

function runDetail(r: RunRecord, publishedId: string | null): string {
  const lines = [
    `run ${r.run_id}${r.run_id === publishedId ? '  (PUBLISHED)' : ''}`,
    `status: ${r.status}${r.forced ? ' (forced past failed gates)' : ''}   kind: ${r.kind}   actor: ${r.actor}`,
    `created: ${r.created_at}   finished: ${r.finished_at ?? '-'}   as-of: ${r.as_of ?? '-'}`,
    `parent: ${r.parent_run_id ?? '-'}   features fingerprint: ${r.features_fingerprint ?? '-'}`,
    `published at: ${r.published_at.length ? r.published_at.join(', ') : '-'}`,
  ];
  if (r.error) lines.push(`error: [${r.error.code}] ${r.error.message}`);
  lines.push('stages:');
  for (const [name, st] of Object.entries(r.stages))
    lines.push(`  ${name}: ${st.seconds ?? '-'} s ${JSON.stringify(st.figures)}`);
  lines.push('gates:');
  let text = `${lines.join('\n')}\n${gatesText(r.gates)}artifacts:\n`;
  for (const [name, a] of Object.entries(r.artifacts)) {
    if (a)
      text += `  ${name}: ${a.bucket}/${a.key} (${a.size} B${a.run_id === r.run_id ? '' : `, inherited from ${a.run_id}`})\n`;
  }
  return text;
}

/** `matchcast runs …` — exit code 0 ok, 1 failure, 2 usage error, 3 a gate failed. */
export async function runsCommand(argv: string[], io: StoreCommandIo = {}): Promise<number> {
  const v = parseStoreArgs(argv, io, USAGE);
  if (typeof v === 'number') return v;
  const { err } = writersOf(io);
  const { emit } = v;
  const [cmd, id, ...extra] = v.positionals;
  const needsId = ['show', 'publish', 'rollback'].includes(cmd);
  if (
    !['list', 'show', 'publish', 'rollback', 'history', 'prune'].includes(cmd) ||
    (needsId && !id) ||
    extra.length > 0 ||
    (!needsId && id)
  ) {
    err(`matchcast runs: bad command line "${v.positionals.join(' ')}"\n\n${USAGE}\n`);
    return 2;
  }
  return runOnStore(io, `matchcast runs ${cmd}`, async (deps, config) => {
    const { db } = deps;
    // A run killed outright (SIGKILL, OOM) is shown as failed, not as running forever.
    await markAbandonedRuns(db);
    const published = await readPublished(db);
    switch (cmd) {
      case 'list': {
        const runs = await listRuns(db);
        emit(
          { published: published?.run_id ?? null, runs },
          runs.length
            ? tableOf(runs, {
                run_id: (r) => r.run_id,
                status: (r) => r.status + (r.forced ? '*' : ''),
                kind: (r) => r.kind,
                as_of: (r) => r.as_of ?? '-',
                gates: (r) =>
                  r.gates.length ? `${r.gates.filter((g) => g.passed).length}/${r.gates.length}` : '-',
                published: (r) =>
                  r.run_id === published?.run_id ? 'SERVED' : r.published_at.length ? 'before' : '',
              })
            : 'no pipeline runs yet\n',
        );
        return 0;
      }
      case 'show': {
        const r = await readRunRecord(db, id!);
        if (!r) throw new MatchcastError('MC_ERR_NOT_FOUND', `run ${id} does not exist`);
        emit({ ...r, published: r.run_id === published?.run_id }, runDetail(r, published?.run_id ?? null));
        return 0;
      }
      case 'history': {
        const events = await readRunHistory(db);
        emit(
          events,
          events.length
            ? tableOf(events, {
                seq: (e) => String(e.seq),
                at: (e) => e.at,
                action: (e) => e.action,
                from: (e) => e.from_run ?? '-',
                to: (e) => e.to_run,
                actor: (e) => e.actor,
                forced: (e) => (e.forced ? 'yes' : ''),
                reason: (e) => e.reason ?? '',
              })
            : 'no publications yet\n',
        );
        return 0;
      }
      case 'prune': {
        const removed = await pruneRuns(deps, config.runsKeep);
        emit({ removed }, `${removed.length} run(s) removed (RUNS_KEEP=${config.runsKeep})\n`);
        return 0;
      }
      case 'publish': {
        const run = await RunWriter.resume(deps, id!, { forPublish: true });
        const gates = await evaluateGates(run, published, {}, { maxRowDrop: config.gateMaxRowDrop });
        err(gatesText(gates));
        const event = await run.publish({
          gates,
          force: v.force,
          actor: v.actor,
          reason: v.reason,
          requireParentCurrent: !v.force,
        });
        await pruneRuns(deps, config.runsKeep);
        // What is served changed: its future rows go to the served log (docs/monitoring.md).
        await recordServedFromPublished(deps, { servedAt: new Date(), publicationId: event.to_run });
        emit(
          event,
          `published ${event.to_run} (was ${event.from_run ?? '-'})${event.forced ? ' — forced' : ''}\n`,
        );
        return 0;
      }
      case 'rollback': {
        const target = await readRunRecord(db, id!);
        const champion = await createRegistry(deps, config).resolve('champion');
        if (
          target?.features_fingerprint &&
          champion?.feature_fingerprint &&
          target.features_fingerprint !== champion.feature_fingerprint &&
          !v.force
        ) {
          throw new MatchcastError(
            'MC_ERR_FEATURES_MISMATCH',
            `run ${id} has features ${target.features_fingerprint} but champion v${champion.version} was trained on ${champion.feature_fingerprint}; pass --force to serve it anyway (live answers are then 503)`,
          );
        }
        // The publish gates again, on the run's files as stored now (not against the served run:
        // going back to fewer results is what a rollback does).
        const gates = (record: RunRecord) => evaluateGates(RunWriter.view(deps, record), null);
        const event = await rollbackRun(deps, id!, { actor: v.actor, reason: v.reason, gates });
        await recordServedFromPublished(deps, { servedAt: new Date(), publicationId: event.to_run });
        emit(
          event,
          `serving ${event.to_run} again (was ${event.from_run ?? '-'}); undo: matchcast runs rollback ${event.from_run ?? '-'}\n`,
        );
        return 0;
      }
    }
    return 2;
  });
}
