import os from 'node:os';
import { parseArgs } from 'node:util';
import { type Config, loadEnv, parseConfig } from '../config.js';
import { isMatchcastError, isStage, MatchcastError, STAGES, type Stage } from '../domain/index.js';
import { type AliasEvent, createRegistry, type ModelRegistry, type ModelVersion } from '../registry/index.js';
import { createObjectStore, type ObjectStore } from '../storage/index.js';

/** A plain-text table with a header row, columns padded to their widest cell. */
export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (c ?? '').padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return `${[line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n')}\n`;
}

const USAGE = `Usage: matchcast registry <command> [--json]

  list                               every version with its metrics and aliases
  show <version>                     one version (spec 2.7 fields)
  alias set <alias> <version>        point champion | challenger | candidate at a version
  alias rm <alias>                   remove an alias
  promote                            operator sign-off: the candidate becomes champion
  history                            the append-only log of alias moves

Options:
  --json             machine-readable output
  --actor <name>     who is acting (default: $USER)
  --reason <text>    recorded in the history with the move`;

/** Where the command writes, and which settings it reads; tests replace them. */
export interface RegistryCommandIo {
  /** Default `process.stdout.write`. */
  out?: (text: string) => void;
  /** Default `process.stderr.write`. */
  err?: (text: string) => void;
  /** Default `parseConfig(loadEnv())`. */
  config?: Config;
  /** Default a store from `config` (closed at the end when created here). */
  store?: ObjectStore;
}

/** `$USER`, else the OS account name, else `unknown`. */
export function defaultActor(): string {
  if (process.env.USER) return process.env.USER;
  try {
    return os.userInfo().username || 'unknown';
  } catch {
    return 'unknown';
  }
}

function aliasesOf(version: string, aliases: Partial<Record<Stage, string>>): string[] {
  return STAGES.filter((s) => aliases[s] === version);
}

function num(x: number | undefined): string {
  return x === undefined ? '' : x.toFixed(4);
}

function versionsTable(versions: ModelVersion[], aliases: Partial<Record<Stage, string>>): string {
  return formatTable(
    ['version', 'aliases', 'created_at', 'family', 'log_loss', 'market_log_loss', 'rps', 'run_id'],
    versions.map((v) => [
      v.version,
      aliasesOf(v.version, aliases).join(','),
      v.created_at,
      v.params.family ?? '',
      num(v.metrics.log_loss),
      num(v.metrics.market_log_loss),
      num(v.metrics.rps),
      v.run_id,
    ]),
  );
}

function versionDetail(v: ModelVersion, aliases: Partial<Record<Stage, string>>): string {
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
    ...Object.entries(v.metrics).map(([k, x]) => `  ${k.padEnd(24)} ${x}`),
    '',
    'params',
    ...Object.entries(v.params).map(([k, x]) => `  ${k.padEnd(24)} ${x}`),
    '',
    `feature_names (${v.feature_names.length})`,
    `  ${v.feature_names.join(', ')}`,
  ];
  return `${lines.join('\n')}\n`;
}

function historyTable(events: AliasEvent[]): string {
  return formatTable(
    ['seq', 'at', 'actor', 'alias', 'from', 'to', 'reason'],
    events.map((e) => [
      String(e.seq),
      e.at,
      e.actor,
      e.alias,
      e.from_version ?? '-',
      e.to_version ?? '-',
      e.reason ?? '',
    ]),
  );
}

function parseStage(value: string | undefined): Stage {
  if (value === undefined || !isStage(value)) {
    throw new MatchcastError('MC_ERR_VALIDATION', `alias must be one of ${STAGES.join(', ')}`);
  }
  return value;
}

async function run(
  reg: ModelRegistry,
  positionals: string[],
  flags: { json: boolean; actor: string; reason?: string },
  out: (t: string) => void,
): Promise<number> {
  const [cmd, ...args] = positionals;
  const emit = (value: unknown, text: string) =>
    out(flags.json ? `${JSON.stringify(value, null, 2)}\n` : text);
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
      if (sub === 'set') {
        const stage = parseStage(alias);
        if (!version) throw new MatchcastError('MC_ERR_VALIDATION', 'alias set needs <alias> <version>');
        const event = await reg.setAlias(stage, version, flags.actor, flags.reason);
        emit(
          { changed: event !== null, event, aliases: await reg.aliases() },
          event
            ? `${stage}: ${event.from_version ?? '-'} → ${event.to_version}\n`
            : `${stage} already points at version ${version}\n`,
        );
        return 0;
      }
      if (sub === 'rm') {
        const stage = parseStage(alias);
        const event = await reg.deleteAlias(stage, flags.actor, flags.reason);
        emit(
          { changed: event !== null, event, aliases: await reg.aliases() },
          event ? `${stage}: ${event.from_version} → -\n` : `${stage} was not assigned\n`,
        );
        return 0;
      }
      throw new MatchcastError(
        'MC_ERR_VALIDATION',
        'expected `alias set <alias> <version>` or `alias rm <alias>`',
      );
    }
    case 'promote': {
      const moved = await reg.promoteCandidate(flags.actor, flags.reason);
      const rollback =
        moved.from === null ? '' : `\nrollback: matchcast registry alias set champion ${moved.from}`;
      emit(
        { champion: moved.to, previous_champion: moved.from, aliases: await reg.aliases() },
        `champion: ${moved.from ?? '-'} → ${moved.to} (candidate removed)${rollback}\n`,
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

/** `matchcast registry …` — returns the exit code (0 ok, 1 failure, 2 usage error). */
export async function registryCommand(argv: string[], io: RegistryCommandIo = {}): Promise<number> {
  const out = io.out ?? ((t: string) => void process.stdout.write(t));
  const err = io.err ?? ((t: string) => void process.stderr.write(t));
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        json: { type: 'boolean', default: false },
        actor: { type: 'string' },
        reason: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (e) {
    err(`${(e as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  const values = parsed.values as { json: boolean; actor?: string; reason?: string; help: boolean };
  if (values.help || parsed.positionals.length === 0) {
    (values.help ? out : err)(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  const config = io.config ?? parseConfig(loadEnv());
  // No logger: stdout carries the table or the JSON document and nothing else.
  const store = io.store ?? createObjectStore(config);
  try {
    const reg = createRegistry(store, config);
    return await run(
      reg,
      parsed.positionals,
      { json: values.json, actor: values.actor ?? defaultActor(), reason: values.reason },
      out,
    );
  } catch (e) {
    if (isMatchcastError(e)) {
      err(`matchcast registry: ${e.message} [${e.code}]\n`);
      return e.code === 'MC_ERR_VALIDATION' ? 2 : 1;
    }
    throw e;
  } finally {
    if (!io.store) await store.close();
  }
}
