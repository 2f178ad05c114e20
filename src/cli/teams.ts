import { type Database, openDatabase } from '../db/index.js';
import { MatchcastError } from '../domain/index.js';
import { listTeamAliases, removeTeamAlias, SourcesRepository, setTeamAlias } from '../sources/index.js';
import { type CommandIo, configOf, failureText, writersOf } from './command-io.js';
import { parseCliArgs, showHelp, UsageError } from './usage-error.js';

const USAGE = `Usage: matchcast teams <command>

  alias "SOURCE NAME" "KNOWN NAME" [--region R]   a source's spelling of a known team (the region is
                                                 the team's, or --region when it plays in several)
  add "NAME" --region R                          accept a name no match has yet as a new team of R
  aliases                                        list the aliases
  unalias "SOURCE NAME" [--region R]             forget an alias

Sources whose rows waited for a name read their whole body again at their next poll.`;

export interface TeamsCommandIo extends CommandIo {
  deps?: { db: Database };
}

const aliasText = (a: { region: string; alias: string; team: string }, accepted: string) =>
  a.alias === a.team ? `${a.region}: "${a.team}" ${accepted}` : `${a.region}: "${a.alias}" → "${a.team}"`;

/** `matchcast teams …`: the team-name mapping used by sources. */
export async function teamsCommand(argv: string[], io: TeamsCommandIo = {}): Promise<number> {
  const { out, err } = writersOf(io);
  const [sub, ...rest] = argv;
  if (!sub || sub === '--help' || sub === '-h' || sub === 'help') {
    out(`${USAGE}\n`);
    return sub ? 0 : 2;
  }
  const { values, positionals } = parseCliArgs(rest, { strings: ['region'], positionals: true });
  if (values.help) return showHelp(USAGE, out);
  const arity: Record<string, number> = { alias: 2, add: 1, aliases: 0, unalias: 1 };
  if (!(sub in arity)) throw new UsageError(`unknown teams command "${sub}" (alias, add, aliases, unalias)`);
  if (positionals.length !== arity[sub]) throw new UsageError(`teams ${sub} expects ${arity[sub]} name(s)`);
  if (sub === 'add' && !values.region) throw new UsageError('teams add needs --region');
  const config = configOf(io, err);
  if (!config) return 1;
  let db: Database | undefined;
  try {
    db = io.deps?.db ?? (await openDatabase(config));
    if (sub === 'aliases') {
      const list = await listTeamAliases(db);
      const lines = list.map((a) => `${aliasText(a, '(accepted as a new team)')}\n`);
      out(list.length === 0 ? 'no aliases\n' : lines.join(''));
      return 0;
    }
    if (sub === 'unalias') {
      const n = await removeTeamAlias(db, positionals[0] as string, values.region);
      if (n === 0) throw new MatchcastError('MC_ERR_NOT_FOUND', `no alias "${positionals[0]}"`);
      out(`${n} alias(es) removed\n`);
      return 0;
    }
    const [alias, team] = sub === 'add' ? [positionals[0], positionals[0]] : positionals;
    const set = await setTeamAlias(db, alias as string, team as string, values.region);
    await new SourcesRepository(db).rereadHeld();
    out(`${aliasText(set, 'accepted as a new team')}\n`);
    return 0;
  } catch (e) {
    err(`teams ${sub}: ${failureText(e)}\n`);
    return 1;
  } finally {
    if (!io.deps) await db?.close().catch(() => undefined);
  }
}
