// From the command line to a run's input: the runbook file (checked, with every problem at
// file:line:column), `-i key=value` pairs and an `--inputs FILE`, bound to the declared inputs.
// Messages name inputs, never their values (an input may be secret).
/* eslint-disable @typescript-eslint/no-require-imports -- lazy loading keeps start-up fast */
import { readFileSync } from 'node:fs';
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

/** Checks a runbook file; throws RUNBOOK_NOT_FOUND or RUNBOOK_INVALID (with every problem). */
export function loadRunbook(file: string, ctx: Pick<CliContext, 'cwd'>): LoadedRunbook {
  const { checkRunbookFile } = require('../dsl/loader') as typeof import('../dsl/loader');
  let checked: ReturnType<typeof checkRunbookFile>;
  try {
    checked = checkRunbookFile(path.resolve(ctx.cwd, file), { displayName: displayName(ctx) });
  } catch (error) {
    if ((error as { code?: unknown }).code === 'RUNBOOK_NOT_FOUND') {
      throw new CliError(
        'RUNBOOK_NOT_FOUND',
        `${file}: runbook file not found`,
        'check the path (it is relative to the current directory)',
      );
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

/** `-i key=value` pairs (repeatable). The value may contain `=`; an empty value is allowed. */
export function parseInputPairs(pairs: string[]): Record<string, string> {
  const inputs: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) {
      throw new CliError(
        'CLI_USAGE',
        `-i expects key=value, got "${pair.length > 40 ? `${pair.slice(0, 40)}…` : pair}"`,
        'e.g. -i name=orders -i cpu_millis=2000',
      );
    }
    inputs[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return inputs;
}

/** An inputs file: a YAML or JSON mapping of input names to (typed) values. */
export function readInputsFile(file: string, ctx: Pick<CliContext, 'cwd'>): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path.resolve(ctx.cwd, file), 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new CliError('CLI_USAGE', `cannot read the inputs file ${file} (${reason})`);
  }
  let raw: unknown;
  try {
    const yaml = require('yaml') as typeof import('yaml');
    raw = yaml.parse(text) ?? {};
  } catch (error) {
    const where = (error as { linePos?: { line: number; col: number }[] }).linePos?.[0];
    throw new CliError(
      'CLI_USAGE',
      `the inputs file ${file} is not valid YAML or JSON${where ? ` (line ${where.line}, column ${where.col})` : ''}`,
    );
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new CliError('CLI_USAGE', `the inputs file ${file} must hold a mapping of input names to values`);
  }
  return raw as Record<string, unknown>;
}

/** `--inputs FILE` first, then `-i` pairs on top. */
export function gatherInputs(
  pairs: string[] | undefined,
  inputsFile: string | undefined,
  ctx: Pick<CliContext, 'cwd'>,
): Record<string, unknown> {
  return {
    ...(inputsFile !== undefined ? readInputsFile(inputsFile, ctx) : {}),
    ...parseInputPairs(pairs ?? []),
  };
}

/** Binds inputs to the runbook's declarations; throws RUNBOOK_INPUT_INVALID listing every problem. */
export function bindRunInputs(
  loaded: LoadedRunbook,
  given: Record<string, unknown>,
): Record<string, JsonValue> {
  const { bindInputs } = require('../dsl/inputs') as typeof import('../dsl/inputs');
  const bound = bindInputs(loaded.definition.inputs, given);
  if (bound.ok) return bound.values;
  const details = bound.problems.map((p) => `${p.message}${p.hint ? ` (${p.hint})` : ''}`);
  const count = bound.problems.length;
  throw new CliError(
    'RUNBOOK_INPUT_INVALID',
    `${count} problem${count === 1 ? '' : 's'} with the inputs of ${loaded.definition.name}`,
    Object.keys(loaded.definition.inputs).length > 0
      ? `give inputs with -i key=value or --inputs FILE; \`tideline plan ${loaded.file}\` lists the declared inputs`
      : `${loaded.definition.name} declares no inputs`,
    details,
  );
}
