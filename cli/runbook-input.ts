// From the command line to a run's input: the runbook file (checked, with every problem at
// file:line:column; children inside the runbooks' folder, `--runbooks-root`), and the input
// values (cli/input-sources.ts) bound to the declared inputs.
// Messages name inputs, never their values (an input may be secret).
/* eslint-disable @typescript-eslint/no-require-imports -- lazy loading keeps start-up fast */
import { statSync } from 'node:fs';
import path from 'node:path';
import type { RunbookDefinition } from '../dsl/definition';
import type { JsonValue } from '../dsl/expressions';
import type { RunbookProblem } from '../dsl/problems';
import type { CliContext } from './context';
import { CliError } from './errors';

export interface LoadedRunbook {
  definition: RunbookDefinition;
  /** As the user wrote it, for messages. */
  file: string;
}

/** `file:line:column: message` and an indented hint line. */
export function problemLines(problem: RunbookProblem): string[] {
  const where =
    problem.line !== undefined
      ? `${problem.file ?? '<runbook>'}:${problem.line}:${problem.column ?? 1}`
      : `${problem.file ?? '<runbook>'}`;
  const lines = [`${where}: ${problem.message}`];
  if (problem.hint) lines.push(`  hint: ${problem.hint}`);
  return lines;
}

export function displayName(ctx: Pick<CliContext, 'cwd'>): (absolute: string) => string {
  return (absolute) => path.relative(ctx.cwd, absolute) || absolute;
}

/** `--runbooks-root DIR`: an existing folder (absolute), or undefined when not given. */
export function runbooksRootOption(
  dir: string | undefined,
  ctx: Pick<CliContext, 'cwd'>,
): string | undefined {
  if (dir === undefined) return undefined;
  const absolute = path.resolve(ctx.cwd, dir);
  let isDirectory = false;
  try {
    isDirectory = statSync(absolute).isDirectory();
  } catch {
    // reported below
  }
  if (!isDirectory) {
    throw new CliError(
      'CLI_USAGE',
      `--runbooks-root ${dir} is not a folder`,
      'give the folder that holds the runbook and the child runbooks it names',
    );
  }
  return absolute;
}

/**
 * Checks a runbook file; throws RUNBOOK_NOT_FOUND, RUNBOOK_UNREADABLE (a directory or device, too large) or
 * RUNBOOK_INVALID (with every problem). Child runbooks must be inside `runbooksRoot` (default:
 * the runbook's folder).
 */
export function loadRunbook(
  file: string,
  ctx: Pick<CliContext, 'cwd'>,
  runbooksRoot?: string,
): LoadedRunbook {
  const { checkRunbookFile } = require('../dsl/loader') as typeof import('../dsl/loader');
  let checked: ReturnType<typeof checkRunbookFile>;
  try {
    checked = checkRunbookFile(path.resolve(ctx.cwd, file), {
      displayName: displayName(ctx),
      ...(runbooksRoot !== undefined ? { runbooksRoot } : {}),
    });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'RUNBOOK_NOT_FOUND') {
      throw new CliError(
        'RUNBOOK_NOT_FOUND',
        `${file}: runbook file not found`,
        'check the path (it is relative to the current directory)',
      );
    }
    if (code === 'RUNBOOK_UNREADABLE') {
      const reason = (error as { problems?: RunbookProblem[] }).problems?.[0]?.message ?? 'cannot be read';
      throw new CliError('RUNBOOK_UNREADABLE', `${file} ${reason}`, 'give the path of a runbook YAML file');
    }
    throw error;
  }
  if (checked.definition === undefined || checked.problems.length > 0) {
    const count = checked.problems.length;
    throw new CliError(
      'RUNBOOK_INVALID',
      `${file} is not a valid runbook (${count} problem${count === 1 ? '' : 's'})`,
      `fix the problems above; \`tideline validate ${file}\` checks again without running`,
      checked.problems.flatMap(problemLines),
    );
  }
  return { definition: checked.definition, file };
}

/** The deepest nesting of list and map values a run input may have, like runbook YAML. */
export const MAX_INPUT_DEPTH = 100;

/** How deeply lists and maps nest in a value, without recursion (a JSON value may nest 100,000 deep). */
export function nestingDepth(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  for (let entry = stack.pop(); entry !== undefined; entry = stack.pop()) {
    const [item, depth] = entry;
    if (item === null || typeof item !== 'object') continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > MAX_INPUT_DEPTH) return deepest;
    for (const inner of Object.values(item as Record<string, unknown>)) stack.push([inner, depth + 1]);
  }
  return deepest;
}

/** Binds inputs to the runbook's declarations; throws RUNBOOK_INPUT_INVALID listing every problem. */
export function bindRunInputs(
  loaded: LoadedRunbook,
  given: Record<string, unknown>,
): Record<string, JsonValue> {
  const { bindInputs } = require('../dsl/inputs') as typeof import('../dsl/inputs');
  const bound = bindInputs(loaded.definition.inputs, given);
  if (bound.ok) {
    for (const [name, value] of Object.entries(bound.values)) {
      if (nestingDepth(value) > MAX_INPUT_DEPTH) {
        throw new CliError(
          'RUNBOOK_INPUT_INVALID',
          `input \`${name}\` is nested deeper than ${MAX_INPUT_DEPTH} levels (the limit)`,
          'flatten the value; lists and maps of a few levels are all a runbook needs',
        );
      }
    }
    return bound.values;
  }
  const details = bound.problems.map((p) => `${p.message}${p.hint ? ` (${p.hint})` : ''}`);
  const count = bound.problems.length;
  throw new CliError(
    'RUNBOOK_INPUT_INVALID',
    `${count} problem${count === 1 ? '' : 's'} with the inputs of ${loaded.definition.name}`,
    Object.keys(loaded.definition.inputs).length > 0
      ? `give inputs with -i key=value, -i key=@FILE, --inputs FILE or TIDELINE_INPUT_<NAME>; \`tideline plan ${loaded.file}\` lists the declared inputs`
      : `${loaded.definition.name} declares no inputs`,
    details,
  );
}
