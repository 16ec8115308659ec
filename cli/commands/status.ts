// `tideline status ID`: shows a run — following it until it ends (this is how a detached run is
// reattached), or one look with --once. Exit code as for `run`: 0 succeeded (or still running
// with --once), 1 failed or cancelled, 4 no such run, 5 held at a failed step (it stops there).
import { parseCommand, type CommandSpec } from '../args';
import type { Command } from '../context';
import { followRun } from '../follow';
import { withTemporal } from '../temporal';
import { runIdArgument } from '../workflow-id';

export const STATUS_SPEC = {
  name: 'status',
  usage: 'ID [--once] [--show-secrets]',
  description: [
    'Shows the steps of run ID with their state and elapsed time, what a wait is waiting for, and a',
    'pending approval with the command that answers it. Without --once it follows the run until it',
    'ends, like `tideline run` (Ctrl-C detaches again); a finished run prints its report. A run held',
    'at a failed step shows the failure and the retry / skip / rollback commands, and exits 5.',
  ],
  options: {
    once: { type: 'boolean' },
    'show-secrets': { type: 'boolean' },
  },
  optionHelp: [
    ['--once', 'print the current state and return, even while the run goes on'],
    ['--show-secrets', 'print secret outputs instead of ••••••'],
  ],
  examples: [
    'tideline status provision-production-service-3f9a1c',
    'tideline status provision-production-service-3f9a1c --once --json',
  ],
  positionals: { min: 1, max: 1, names: 'the run ID' },
} satisfies CommandSpec;

export const statusCommand: Command = async (argv, ctx) => {
  const parsed = parseCommand(STATUS_SPEC, argv, ctx);
  const workflowId = runIdArgument(parsed.positionals);
  return withTemporal(ctx, (session) =>
    followRun(ctx, session, session.client.workflow.getHandle(workflowId), {
      showSecrets: parsed.values['show-secrets'] === true,
      once: parsed.values.once === true,
    }),
  );
};
