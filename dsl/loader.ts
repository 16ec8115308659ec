// The runbook loader: YAML text with source positions → checked, normalised definition. Reads
// child runbooks relative to the file that names them and embeds them. Every problem (YAML syntax,
// schema, semantic, in children too) comes back at once, as file:line:column with a hint.
// Uses `fs` and `yaml`, so it runs in the CLI and the worker, never inside a workflow.
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import type { RunbookDefinition } from './definition';
import { normaliseRunbook } from './normalise';
import { PositionIndex } from './positions';
import type { ProblemPath, RunbookProblem } from './problems';
import { RunbookError, sortProblems } from './problems';
import type { RunbookStep } from './schema';
import { validateRunbookDocument } from './validator';

export interface LoadOptions {
  /** Reads a file; returns undefined when it does not exist. Defaults to the file system. */
  readFile?: (absolutePath: string) => string | undefined;
  /** How file names appear in problems (default: relative to the working directory). */
  displayName?: (absolutePath: string) => string;
}

export interface RunbookCheck {
  /** Present when there are no problems. */
  definition?: RunbookDefinition;
  problems: RunbookProblem[];
}

function readFromDisk(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if (
      (error as NodeJS.ErrnoException).code === 'ENOENT' ||
      (error as NodeJS.ErrnoException).code === 'EISDIR'
    )
      return undefined;
    throw error;
  }
}

class Loader {
  private readonly done = new Map<string, RunbookCheck>();
  private readonly loading: string[] = [];
  private readonly readFile: (path: string) => string | undefined;
  private readonly display: (path: string) => string;

  constructor(options: LoadOptions) {
    this.readFile = options.readFile ?? readFromDisk;
    this.display = options.displayName ?? ((path) => relative(process.cwd(), path) || path);
  }

  checkText(text: string, absolutePath: string): RunbookCheck {
    const file = this.display(absolutePath);
    const lines = new LineCounter();
    const document = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
    if (document.errors.length > 0) {
      return {
        problems: document.errors.map((error) => {
          const at = lines.linePos(error.pos[0]);
          return {
            rule: 'yaml' as const,
            path: [],
            file,
            line: at.line,
            column: at.col,
            message: `YAML: ${error.message.split('\n')[0] ?? error.message}`,
            hint: 'check the indentation and quoting here; strings with ": " or "${{" are safest in quotes',
          };
        }),
      };
    }
    const positions = new PositionIndex(document, lines);
    const raw: unknown = document.toJS();

    const children = new Map<RunbookStep, RunbookDefinition | undefined>();
    const childProblems: RunbookProblem[] = [];
    const result = validateRunbookDocument(raw, {
      childRunbook: (step, path) => {
        const child = this.child(step, absolutePath, [...path, 'runbook'], childProblems);
        children.set(step, child);
        return child;
      },
      locate: (path) => positions.locate(path),
    });
    const problems = sortProblems([
      ...result.problems.map((p) => ({ ...p, file, ...positions.locate(p.path, p.anchor) })),
      ...childProblems.map((p) =>
        p.file === undefined ? { ...p, file, ...positions.locate(p.path, p.anchor) } : p,
      ),
    ]);
    if (problems.length > 0 || !result.runbook) return { problems };
    const definition = normaliseRunbook(result.runbook, {
      childRunbook: (step) => {
        const child = children.get(step);
        if (!child)
          throw new RunbookError('RUNBOOK_INVALID', [], `child runbook ${step.runbook} was not loaded`);
        return child;
      },
    });
    return { definition, problems: [] };
  }

  /** Loads a child; its own problems keep its file name, a missing file is reported at the step. */
  private child(
    step: RunbookStep,
    parentPath: string,
    at: ProblemPath,
    problems: RunbookProblem[],
  ): RunbookDefinition | undefined {
    const absolute = resolve(dirname(parentPath), step.runbook);
    if (this.loading.includes(absolute)) {
      problems.push({
        rule: 'child-runbook',
        path: at,
        message: `runbook \`${step.runbook}\` runs itself through its children (a cycle)`,
      });
      return undefined;
    }
    const checked = this.check(absolute);
    if (checked === undefined) {
      problems.push({
        rule: 'child-runbook',
        path: at,
        message: `child runbook \`${step.runbook}\` not found`,
        hint: 'the path is relative to this runbook file',
      });
      return undefined;
    }
    problems.push(...checked.problems);
    return checked.definition;
  }

  /** Checks a file (cached); undefined when it does not exist. */
  check(absolutePath: string): RunbookCheck | undefined {
    const cached = this.done.get(absolutePath);
    if (cached) return cached;
    const text = this.readFile(absolutePath);
    if (text === undefined) return undefined;
    this.loading.push(absolutePath);
    try {
      const checked = this.checkText(text, absolutePath);
      this.done.set(absolutePath, checked);
      return checked;
    } finally {
      this.loading.pop();
    }
  }
}

function notFound(path: string, file: string, reason: string): RunbookError {
  return new RunbookError(
    'RUNBOOK_NOT_FOUND',
    [{ rule: 'child-runbook', path: [], file, message: reason }],
    `${file}: ${reason}`,
  );
}

function finish(checked: RunbookCheck): RunbookDefinition {
  if (checked.definition && checked.problems.length === 0) return checked.definition;
  throw new RunbookError('RUNBOOK_INVALID', checked.problems);
}

/**
 * Checks a runbook file and its children: all problems, or the normalised definition.
 * Throws RunbookError `RUNBOOK_NOT_FOUND` when the file cannot be read.
 */
export function checkRunbookFile(path: string, options: LoadOptions = {}): RunbookCheck {
  const absolute = resolve(path);
  const loader = new Loader(options);
  let checked: RunbookCheck | undefined;
  try {
    checked = loader.check(absolute);
  } catch (error) {
    if (error instanceof RunbookError) throw error;
    throw notFound(
      absolute,
      path,
      `cannot read the runbook: ${(error as NodeJS.ErrnoException).code ?? 'read error'}`,
    );
  }
  if (checked === undefined) throw notFound(absolute, path, 'runbook file not found');
  return checked;
}

/** Loads a runbook file: its normalised definition, or RunbookError `RUNBOOK_INVALID` with every problem. */
export function loadRunbookFile(path: string, options: LoadOptions = {}): RunbookDefinition {
  return finish(checkRunbookFile(path, options));
}

/** Checks runbook text as if it were the file `path` (children resolve relative to it). */
export function checkRunbookText(text: string, path: string, options: LoadOptions = {}): RunbookCheck {
  return new Loader(options).checkText(text, resolve(path));
}

/** Loads runbook text as if it were the file `path`; throws RunbookError `RUNBOOK_INVALID`. */
export function loadRunbookText(text: string, path: string, options: LoadOptions = {}): RunbookDefinition {
  return finish(checkRunbookText(text, path, options));
}
