// Run ids the user chooses (`run --id`) or names (`status ID`, `cancel ID`, …): checked before
// anything is sent, so a bad one is a usage error naming the rule (exit 2) rather than whatever
// the server makes of it.
import { CliError } from './errors';

/** Temporal's default limit on a workflow id (limit.maxIDLength), in bytes. */
export const MAX_WORKFLOW_ID_BYTES = 1000;

/** Why `id` cannot be a run id, or undefined when it can. */
export function workflowIdProblem(id: string): string | undefined {
  if (id.trim() === '') return 'must not be empty';
  const bytes = Buffer.byteLength(id, 'utf8');
  if (bytes > MAX_WORKFLOW_ID_BYTES) {
    return `must be at most ${MAX_WORKFLOW_ID_BYTES} bytes (Temporal's workflow id limit); it has ${bytes}`;
  }
  // eslint-disable-next-line no-control-regex -- control characters are what this looks for
  if (/[\u0000-\u001f\u007f-\u009f]/.test(id))
    return 'must not contain control characters (newlines, tabs …)';
  if (/[\ud800-\udfff]/.test(id.replace(/[\ud800-\udbff][\udc00-\udfff]/g, ''))) {
    return 'must be valid Unicode text';
  }
  return undefined;
}

/** The run ID a command was given (its one positional), checked like `run --id`; else CLI_USAGE. */
export function runIdArgument(positionals: string[]): string {
  const id = positionals[0] ?? '';
  const problem = workflowIdProblem(id);
  if (problem !== undefined) {
    throw new CliError('CLI_USAGE', `the run ID ${problem}`, 'give a run ID as `tideline list` shows it');
  }
  return id;
}
