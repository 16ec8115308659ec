// `--help` for the dev-stack commands, through the core CLI's help renderer.
import type { CommandSpec } from '../args';
import type { CliContext } from '../context';
import { EXIT } from '../errors';
import { renderCommandHelp } from '../output/help';

export function printHelp(spec: CommandSpec, ctx: CliContext): number {
  ctx.stdout.write(renderCommandHelp(spec));
  return EXIT.OK;
}
