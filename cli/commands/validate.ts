// `tideline validate PATH…`: every problem of every runbook (and its child runbooks), with
// file:line:column and a hint; a runbook test file (`*.test.yaml`) is checked as one, with the
// runbooks it names, and a state file (`*.state.yaml`) as `tideline drift` reads it, with its
// repair runbooks, and a list of mutants (`*.mutants.yaml`) against the runbook beside it; a folder
// stands for every YAML file under it. Exit 0 when all are valid, 2
// otherwise. Needs no server.
/* eslint-disable @typescript-eslint/no-require-imports -- lazy loading keeps start-up fast */
import path from 'node:path';
import type { RunbookProblem } from '../../dsl/problems';
import { parseCommand, type CommandSpec } from '../args';
import type { Command } from '../context';
import { EXIT } from '../errors';
import { assertNever } from '../../cloud/assert-never';
import { styleFor } from '../output/style';
import { expandPaths } from '../../dsl/path-expansion';
import { displayName, problemLines, runbooksRootOption } from '../runbook-input';
import { MUTANTS_FILE_SUFFIX } from '../../rehearsal/mutation/equivalent-mutants';
import { TEST_FILE_SUFFIX } from '../../rehearsal/test-files';
import { STATE_FILE_NAME } from '../../state/state-file-name';

export const VALIDATE_SPEC = {
  name: 'validate',
  usage: 'PATH… [--runbooks-root DIR]',
  description: [
    'Checks the schema, actions and their inputs, references between steps, expressions and',
    'secrets, in the files given and the child runbooks they name. Nothing runs and no server is',
    'needed. Exit 0 when every runbook is valid, 2 when any has a problem. Child runbooks must be',
    "inside the runbook's folder, or inside --runbooks-root DIR (to share runbooks between folders).",
    'A folder stands for every .yaml/.yml file under it; *.test.yaml files are checked as runbook tests,',
    '*.state.yaml files as state files (with their repair runbooks), *.mutants.yaml files as lists of',
    "a runbook's mutants (`tideline test --mutate`), against the runbook beside them.",
  ],
  options: { 'runbooks-root': { type: 'string' } },
  optionHelp: [
    ['--runbooks-root DIR', "the folder child runbooks must be in (default: each runbook's folder)"],
  ],
  examples: ['tideline validate runbooks/', 'tideline validate my-runbook.yaml --json'],
  positionals: { min: 1, names: 'a runbook FILE or folder' },
} satisfies CommandSpec;

interface FileResult {
  file: string;
  ok: boolean;
  name?: string;
  steps?: number;
  /** For a test file: how many cases it holds. */
  cases?: number;
  /** For a state file: how many rules it holds. */
  rules?: number;
  /** For a list of mutants (`x.mutants.yaml`): how many mutants it lists. */
  mutants?: number;
  problems: RunbookProblem[];
}

/** A test, state or mutants file's problem (it carries a stable code) as validate lists it. */
function coded(
  rule: 'test-file' | 'state-file' | 'mutants-file',
  problem: { file: string; line: number; column: number; message: string; code: string; hint?: string },
): RunbookProblem {
  const { file, line, column, message, code, hint } = problem;
  return {
    rule,
    path: [],
    file,
    line,
    column,
    message: `${message} [${code}]`,
    ...(hint !== undefined && { hint }),
  };
}

function checkTestFile(file: string, cwd: string): FileResult {
  const { loadTestFile } =
    require('../../rehearsal/test-file-loader') as typeof import('../../rehearsal/test-file-loader');
  const checked = loadTestFile(path.resolve(cwd, file), displayName({ cwd }));
  if (checked.ok)
    return { file, ok: true, cases: checked.cases.length + checked.stateCases.length, problems: [] };
  return { file, ok: false, problems: checked.problems.map((p) => coded('test-file', p)) };
}

function checkStateFile(file: string, cwd: string): FileResult {
  const { loadStateFile } = require('../../state/state-file') as typeof import('../../state/state-file');
  const checked = loadStateFile(path.resolve(cwd, file), displayName({ cwd }));
  if (checked.ok)
    return { file, ok: true, name: checked.state.name, rules: checked.state.rules.length, problems: [] };
  return { file, ok: false, problems: checked.problems.map((p) => coded('state-file', p)) };
}

function checkMutantsFile(file: string, cwd: string): FileResult {
  const { checkMutantsFile: check } =
    require('../../rehearsal/mutation/mutation-plan') as typeof import('../../rehearsal/mutation/mutation-plan');
  const checked = check(path.resolve(cwd, file), displayName({ cwd }));
  if (checked.ok) return { file, ok: true, mutants: checked.listed, problems: [] };
  return { file, ok: false, problems: checked.problems.map((p) => coded('mutants-file', p)) };
}

/** What a YAML file is, by its name: the one place validate (a file or a folder's) tells them apart. */
type FileKind = 'test' | 'state' | 'mutants' | 'runbook';

function fileKind(file: string): FileKind {
  if (file.endsWith(TEST_FILE_SUFFIX)) return 'test';
  if (STATE_FILE_NAME.test(file)) return 'state';
  if (file.endsWith(MUTANTS_FILE_SUFFIX)) return 'mutants';
  return 'runbook';
}

function checkFile(file: string, cwd: string, runbooksRoot: string | undefined): FileResult {
  const kind = fileKind(file);
  switch (kind) {
    case 'test':
      return checkTestFile(file, cwd);
    case 'state':
      return checkStateFile(file, cwd);
    case 'mutants':
      return checkMutantsFile(file, cwd);
    case 'runbook':
      return checkRunbookFile(file, cwd, runbooksRoot);
    default:
      return assertNever(kind, 'file kind');
  }
}

function checkRunbookFile(file: string, cwd: string, runbooksRoot: string | undefined): FileResult {
  const { checkRunbookFile } = require('../../dsl/loader') as typeof import('../../dsl/loader');
  try {
    const checked = checkRunbookFile(path.resolve(cwd, file), {
      displayName: displayName({ cwd }),
      ...(runbooksRoot !== undefined ? { runbooksRoot } : {}),
    });
    const result: FileResult = {
      file,
      ok: checked.problems.length === 0 && !!checked.definition,
      problems: checked.problems,
    };
    if (checked.definition) {
      result.name = checked.definition.name;
      result.steps = checked.definition.steps.length;
    }
    return result;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code !== 'RUNBOOK_NOT_FOUND' && code !== 'RUNBOOK_UNREADABLE') throw error;
    const problems = (error as { problems?: RunbookProblem[] }).problems ?? [];
    return {
      file,
      ok: false,
      problems:
        problems.length > 0
          ? problems.map((p) => ({ ...p, file }))
          : [{ rule: 'child-runbook', path: [], file, message: 'runbook file not found' }],
    };
  }
}

/** A file a folder stands for: every YAML file, each checked as what its name says it is. */
const isYaml = (name: string) => /\.ya?ml$/.test(name);

/**
 * The results for one path given: a file (or a path that does not exist) as given; a folder as each
 * YAML file under it, shown relative to where the command runs, or one problem when it has none.
 */
function checkPath(given: string, cwd: string, runbooksRoot: string | undefined): FileResult[] {
  const { files, empty } = expandPaths([given], cwd, isYaml);
  if (empty.length > 0) {
    const problem: RunbookProblem = {
      rule: 'file',
      path: [],
      file: given,
      message: 'is a folder with no .yaml or .yml file under it',
    };
    return [{ file: given, ok: false, problems: [problem] }];
  }
  // A file, or a path that does not exist (checkFile reports it), keeps the name it was given.
  const aFile = files.length === 0 || (files.length === 1 && files[0] === path.resolve(cwd, given));
  if (aFile) return [checkFile(given, cwd, runbooksRoot)];
  return files.map((file) => checkFile(path.relative(cwd, file), cwd, runbooksRoot));
}

function problemJson(problem: RunbookProblem): Record<string, unknown> {
  return {
    file: problem.file ?? null,
    line: problem.line ?? null,
    column: problem.column ?? null,
    rule: problem.rule,
    message: problem.message,
    hint: problem.hint ?? null,
  };
}

export const validateCommand: Command = async (argv, ctx) => {
  const parsed = parseCommand(VALIDATE_SPEC, argv, ctx);
  const root = runbooksRootOption(parsed.values['runbooks-root'], ctx);
  const results = parsed.positionals.flatMap((given) => checkPath(given, ctx.cwd, root));
  const failed = results.filter((r) => !r.ok);
  if (ctx.globals.json) {
    const runbooks = results.map((r) => ({
      file: r.file,
      ok: r.ok,
      name: r.name ?? null,
      problems: r.problems.map(problemJson),
    }));
    ctx.stdout.write(`${JSON.stringify({ ok: failed.length === 0, runbooks })}\n`);
    return failed.length === 0 ? EXIT.OK : EXIT.USAGE;
  }
  const style = styleFor(ctx);
  const lines: string[] = [];
  for (const result of results) {
    if (result.ok && result.rules !== undefined) {
      lines.push(
        `${style.green('✓')} ${result.file}: state ${result.name} is valid (${result.rules} rule${result.rules === 1 ? '' : 's'})`,
      );
      continue;
    }
    if (result.ok && result.mutants !== undefined) {
      lines.push(
        `${style.green('✓')} ${result.file}: list of mutants is valid (${result.mutants} mutant${result.mutants === 1 ? '' : 's'})`,
      );
      continue;
    }
    if (result.ok && result.cases !== undefined) {
      lines.push(
        `${style.green('✓')} ${result.file}: runbook tests are valid (${result.cases} case${result.cases === 1 ? '' : 's'})`,
      );
      continue;
    }
    if (result.ok) {
      lines.push(
        `${style.green('✓')} ${result.file}: ${result.name} is valid (${result.steps} step${result.steps === 1 ? '' : 's'})`,
      );
      continue;
    }
    const count = result.problems.length;
    lines.push(`${style.red('✗')} ${result.file}: ${count} problem${count === 1 ? '' : 's'}`);
    for (const problem of result.problems) {
      const [first, ...rest] = problemLines(problem);
      lines.push(first ?? '', ...rest.map((line) => style.dim(line)));
    }
  }
  if (results.length > 1) {
    lines.push(
      failed.length === 0
        ? `all ${results.length} runbooks are valid`
        : `${failed.length} of ${results.length} runbooks have problems`,
    );
  }
  ctx.stdout.write(`${lines.join('\n')}\n`);
  return failed.length === 0 ? EXIT.OK : EXIT.USAGE;
};
