import type { Config } from '../config.js';
import type { Database } from '../db/index.js';
import { isStage, MatchcastError, STAGES, type Stage } from '../domain/index.js';
import { goalsFingerprintCurrent } from '../pipeline/index.js';
import {
  type AliasEvent,
  createRegistry,
  decidePromotion,
  type LineCheck,
  lineCheckOf,
  type ModelRegistry,
  type ModelVersion,
} from '../registry/index.js';
import { readPublished } from '../runs/index.js';
import { parseStoreArgs, runOnStore, type StoreCommandIo } from './command-io.js';

/** A plain-text table with a header row, columns padded to their widest cell. */
function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (c ?? '').padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return `${[line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n')}\n`;
}

/** {@link formatTable} of `items`, one column per entry of `columns` (header → cell). */
export function tableOf<T>(items: readonly T[], columns: Record<string, (item: T) => string>): string {
  const cells = Object.values(columns);
  return formatTable(
    Object.keys(columns),
    items.map((item) => cells.map((cell) => cell(item))),
  );
}

const USAGE = `Usage: matchcast registry <command> [--json]

  list                               every version with its metrics and aliases
  show <version>                     one version (spec 2.7 fields)
  alias set <alias> <version>        point champion | challenger | candidate at a version
  alias rm <alias>                   remove an alias
  promote                            operator sign-off: the candidate becomes champion; shows the
                                     promotion guard's comparison (champion, opening and closing
                                     lines) and needs --reason when the guard refuses it
  history                            the append-only log of alias moves
                                     (promote and alias set refuse a version trained on features of
                                     another fingerprint than the published run's unless --force)

Options:
  --json             machine-readable output
  --actor <name>     who is acting (default: $USER)
  --reason <text>    recorded in the history with the move
  --force            move an alias to a version trained on other features than the published run's`;

function aliasesOf(version: string, aliases: Partial<Record<Stage, string>>): string[] {
  return STAGES.filter((s) => aliases[s] === version);
}

function num(x: number | undefined): string {
  return x === undefined ? '' : x.toFixed(4);
}

const versionsTable = (versions: ModelVersion[], aliases: Partial<Record<Stage, string>>) =>
  tableOf(versions, {
    version: (v) => v.version,
    aliases: (v) => aliasesOf(v.version, aliases).join(','),
    created_at: (v) => v.created_at,
    family: (v) => v.params.family ?? '',
    log_loss: (v) => num(v.metrics.log_loss),
    opening_line: (v) => num(v.metrics.market_open_log_loss),
    closing_line: (v) => num(v.metrics.market_close_log_loss ?? v.metrics.market_log_loss),
    rps: (v) => num(v.metrics.rps),
    run_id: (v) => v.run_id,
  });

function versionDetail(v: ModelVersion, aliases: Partial<Record<Stage, string>>): string {
  const fields = (o: object) => Object.entries(o).map(([k, x]) => `  ${k.padEnd(24)} ${x}`);
  const lines = [
    `model_name       ${v.model_name}`,
    `version          ${v.version}`,
    `aliases          ${aliasesOf(v.version, aliases).join(', ') || '-'}`,
    `run_id           ${v.run_id}`,
    `created_at       ${v.created_at}`,
    `training_cutoff  ${v.training_cutoff}`,
    `artifact_uri     ${v.artifact_uri}`,
    '',
    'metrics',
    ...fields(v.metrics),
    '',
    'params',
    ...fields(v.params),
    '',
    `feature_names (${v.feature_names.length})`,
    `  ${v.feature_names.join(', ')}`,
  ];
  return `${lines.join('\n')}\n`;
}

const historyTable = (events: AliasEvent[]) =>
  tableOf(events, {
    seq: (e) => String(e.seq),
    at: (e) => e.at,
    actor: (e) => e.actor,
    alias: (e) => e.alias,
    from: (e) => e.from_version ?? '-',
    to: (e) => e.to_version ?? '-',
    reason: (e) => e.reason ?? '',
  });

function parseStage(value: string | undefined): Stage {
  if (value === undefined || !isStage(value)) {
    throw new MatchcastError('MC_ERR_VALIDATION', `alias must be one of ${STAGES.join(', ')}`);
  }
  return value;
}

/** The promotion guard applied to the current candidate against the current champion. */
async function compareCandidate(reg: ModelRegistry, config: Config, candidate: ModelVersion) {
  const championVersion = (await reg.aliases()).champion;
  const champion = championVersion ? await reg.getVersion(championVersion) : null;
  const stored = await reg.readComparison(candidate.version);
  // How the champion's figure was obtained: the promote stage's stored comparison, or the stored metric.
  let source: 'promote-stage' | 'same-window-metric' | 'not-comparable' | 'no-champion' = 'no-champion';
  let championLogLoss: number | null = null;
  if (champion && stored?.champion_version === champion.version && stored.champion_log_loss !== null) {
    source = 'promote-stage';
    championLogLoss = stored.champion_log_loss;
  } else if (
    champion &&
    champion.params.validation_from === candidate.params.validation_from &&
    champion.params.validation_to === candidate.params.validation_to &&
    Number.isFinite(champion.metrics.log_loss)
  ) {
    source = 'same-window-metric';
    championLogLoss = champion.metrics.log_loss!;
  } else if (champion) source = 'not-comparable';
  const opening = lineCheckOf(candidate.metrics, 'open');
  const newLogLoss = candidate.metrics.log_loss ?? Number.NaN;
  const { promotionTolerance: tolerance, promotionOpeningMargin: margin } = config;
  const guard = decidePromotion(newLogLoss, championLogLoss, tolerance, opening, margin);
  const decision =
    source === 'not-comparable'
      ? {
          ...guard,
          promote: false,
          reason: `champion ${champion?.version} was not measured on the candidate's validation window; ${guard.reason}`,
        }
      : guard;
  return {
    candidate: candidate.version,
    champion: champion?.version ?? null,
    source,
    candidate_log_loss: Number.isFinite(newLogLoss) ? newLogLoss : null,
    champion_log_loss: championLogLoss,
    tolerance,
    opening_margin: margin,
    opening,
    closing: lineCheckOf(candidate.metrics, 'close'),
    decision,
  };
}

function comparisonText(c: Awaited<ReturnType<typeof compareCandidate>>): string {
  const f = (x: number | null | undefined) => (x === null || x === undefined ? '-' : x.toFixed(5));
  const line = (name: string, l: LineCheck | null) =>
    l
      ? [name, f(l.line_log_loss), f(l.model_log_loss), String(l.n), f(l.line_log_loss - l.model_log_loss)]
      : [name, '-', '-', '0', '-'];
  return `promotion guard: candidate ${c.candidate} vs champion ${c.champion ?? '-'} (${c.source})\n${formatTable(
    ['bar', 'bar_log_loss', 'candidate_log_loss', 'n', 'edge'],
    [
      [
        `champion (+ tolerance ${c.tolerance})`,
        f(c.champion_log_loss),
        f(c.candidate_log_loss),
        '',
        c.champion_log_loss === null || c.candidate_log_loss === null
          ? '-'
          : f(c.champion_log_loss - c.candidate_log_loss),
      ],
      line('opening line (required)', c.opening),
      line('closing line (shown)', c.closing),
    ],
  )}verdict: ${c.decision.promote ? 'passes' : 'REFUSED'} — ${c.decision.reason}\n`;
}

async function run(
  reg: ModelRegistry,
  flags: Exclude<ReturnType<typeof parseStoreArgs>, number>,
  env: { db: Database; config: Config },
): Promise<number> {
  const { out, emit } = flags;
  const [cmd, ...args] = flags.positionals;
  switch (cmd) {
    case 'list': {
      const [versions, aliases] = await Promise.all([reg.listVersions(), reg.aliases()]);
      emit(
        { model_name: reg.modelName, aliases, versions },
        versions.length ? versionsTable(versions, aliases) : `no versions registered for ${reg.modelName}\n`,
      );
      return 0;
    }
    case 'show': {
      const [version] = args;
      if (!version) throw new MatchcastError('MC_ERR_VALIDATION', 'show needs a version');
      const v = await reg.getVersion(version);
      if (!v) throw new MatchcastError('MC_ERR_NOT_FOUND', `model version ${version} does not exist`);
      const aliases = await reg.aliases();
      emit({ ...v, aliases: aliasesOf(v.version, aliases) }, versionDetail(v, aliases));
      return 0;
    }
    case 'alias': {
      const [sub, alias, version] = args;
      if (sub !== 'set' && sub !== 'rm')
        throw new MatchcastError(
          'MC_ERR_VALIDATION',
          'expected `alias set <alias> <version>` or `alias rm <alias>`',
        );
      const stage = parseStage(alias);
      if (sub === 'set' && !version)
        throw new MatchcastError('MC_ERR_VALIDATION', 'alias set needs <alias> <version>');
      const v = sub === 'set' && stage !== 'candidate' ? await reg.getVersion(version!) : null;
      if (v) await assertServedFeatures(env.db, v, flags.force === true);
      const event =
        sub === 'set'
          ? await reg.setAlias(stage, version!, flags.actor, flags.reason)
          : await reg.deleteAlias(stage, flags.actor, flags.reason);
      const unchanged =
        sub === 'set' ? `${stage} already points at version ${version}` : `${stage} was not assigned`;
      emit(
        { changed: event !== null, event, aliases: await reg.aliases() },
        `${event ? `${stage}: ${event.from_version ?? '-'} → ${event.to_version ?? '-'}` : unchanged}\n`,
      );
      return 0;
    }
    case 'promote': {
      const candidate = await reg.resolve('candidate');
      if (!candidate) throw new MatchcastError('MC_ERR_NOT_FOUND', 'there is no candidate to promote');
      await assertServedFeatures(env.db, candidate, flags.force === true);
      const comparison = await compareCandidate(reg, env.config, candidate);
      if (!flags.json) out(comparisonText(comparison));
      const override = !comparison.decision.promote;
      if (override && !flags.reason) {
        if (flags.json) out(`${JSON.stringify({ promoted: false, comparison }, null, 2)}\n`);
        throw new MatchcastError(
          'MC_ERR_PROMOTION_REFUSED',
          `candidate ${candidate.version} does not pass the promotion guard (${comparison.decision.reason}); pass --reason "<why>" to override`,
        );
      }
      const reason = override
        ? `override of the promotion guard: ${flags.reason} (guard: ${comparison.decision.reason})`
        : flags.reason;
      const moved = await reg.promoteCandidate(flags.actor, reason);
      const rollback =
        moved.from === null ? '' : `\nrollback: matchcast registry alias set champion ${moved.from}`;
      emit(
        {
          promoted: true,
          override,
          champion: moved.to,
          previous_champion: moved.from,
          comparison,
          aliases: await reg.aliases(),
        },
        `champion: ${moved.from ?? '-'} → ${moved.to} (candidate removed)${override ? ' — guard override recorded' : ''}${rollback}\n`,
      );
      return 0;
    }
    case 'history': {
      const events = await reg.history();
      emit(events, events.length ? historyTable(events) : 'no alias moves yet\n');
      return 0;
    }
    default:
      throw new MatchcastError(
        'MC_ERR_VALIDATION',
        cmd ? `unknown registry command "${cmd}"` : 'missing command',
      );
  }
}

/** Refuses a version trained on other features than the published run's, unless `force` (live answers 503). */
async function assertServedFeatures(db: Database, v: ModelVersion, force: boolean): Promise<void> {
  // A goals version's fingerprint names its goal-input definition: checked against this build's inputs.
  const goalsCurrent = v.feature_fingerprint ? goalsFingerprintCurrent(v.feature_fingerprint) : null;
  if (goalsCurrent !== null) {
    if (goalsCurrent || force) return;
    throw new MatchcastError(
      'MC_ERR_FEATURES_MISMATCH',
      `goals version ${v.version} was fitted on goal inputs ${v.feature_fingerprint}, which this build does not compute; pass --force to move the alias anyway (its live answers are 503)`,
    );
  }
  const served = (await readPublished(db))?.features_fingerprint ?? null;
  if (!v.feature_fingerprint || !served || v.feature_fingerprint === served || force) return;
  throw new MatchcastError(
    'MC_ERR_FEATURES_MISMATCH',
    `version ${v.version} was trained on features ${v.feature_fingerprint}, the published run's features are ${served}; pass --force to move the alias anyway (its live answers are 503 until a run with matching features is published)`,
  );
}

/** `matchcast registry …` — returns the exit code (0 ok, 1 failure, 2 usage error). */
export async function registryCommand(argv: string[], io: StoreCommandIo = {}): Promise<number> {
  const flags = parseStoreArgs(argv, io, USAGE);
  if (typeof flags === 'number') return flags;
  return runOnStore(io, 'matchcast registry', ({ db, store }, config) =>
    run(createRegistry({ db, store }, config), flags, { db, config }),
  );
}
