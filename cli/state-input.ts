// Reading the state file a command is given (`drift`, `reconcile`): checked whole, and when it
// has problems they are printed — file:line:column with code and hint, or one JSON document — for
// the command to exit 2.
/* eslint-disable @typescript-eslint/no-require-imports -- lazy loading keeps start-up fast */
import path from 'node:path';
import type { LoadedState } from '../state/state-file';
import type { CliContext } from './context';
import { displayName } from './runbook-input';

/** The loaded state file, or undefined after its problems were printed. */
export function loadStateInput(ctx: CliContext, given: string): LoadedState | undefined {
  const { loadStateFile } = require('../state/state-file') as typeof import('../state/state-file');
  const loaded = loadStateFile(path.resolve(ctx.cwd, given), displayName({ cwd: ctx.cwd }));
  if (loaded.ok) return loaded.state;
  if (ctx.globals.json) ctx.stdout.write(`${JSON.stringify({ ok: false, problems: loaded.problems })}\n`);
  else
    for (const problem of loaded.problems)
      ctx.stderr.write(
        `${problem.file}:${problem.line}:${problem.column}: ${problem.message} [${problem.code}]${problem.hint !== undefined ? `\n  hint: ${problem.hint}` : ''}\n`,
      );
  return undefined;
}
