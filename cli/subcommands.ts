// A command made of subcommands (`tideline drift-watch start …`): the first word that is neither a
// flag nor a global flag's value picks the subcommand, which gets the rest; a missing or unknown
// one is bad usage naming those there are (and the closest, for a typo).
import { closestName } from '../dsl/suggest';
import { commandWordIndex, parseCommand, type CommandSpec } from './args';
import type { Command } from './context';
import { CliError } from './errors';

export function subcommandDispatcher(spec: CommandSpec, subcommands: Record<string, Command>): Command {
  const names = Object.keys(subcommands);
  const oneOf = `one of ${names.join(', ')} (see \`tideline ${spec.name} --help\`)`;
  return async (argv, ctx) => {
    const at = commandWordIndex(argv, { endAtDoubleDash: false });
    const sub = at === -1 ? undefined : argv[at];
    if (sub === undefined) {
      parseCommand(spec, argv, ctx);
      throw new CliError('CLI_USAGE', 'missing the subcommand', oneOf);
    }
    const run = subcommands[sub];
    if (run === undefined) {
      const closest = closestName(sub, names);
      throw new CliError(
        'CLI_USAGE',
        `unknown ${spec.name} subcommand "${sub}"`,
        closest ? `did you mean \`tideline ${spec.name} ${closest}\`?` : oneOf,
      );
    }
    return run([...argv.slice(0, at), ...argv.slice(at + 1)], ctx);
  };
}
