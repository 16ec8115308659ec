// The runbook loader: YAML text with source positions → checked, normalised definition. Reads
// child runbooks relative to the file that names them (inside the runbooks' folder only) and
// embeds them. Every problem (YAML syntax, schema, semantic, in children too) comes back at once,
// as file:line:column with a hint. Files are read bounded (size, regular files, UTF-8) and the
// YAML is held to nesting and alias limits, so no file can hang or exhaust the loader.
// Uses `fs` and `yaml`, so it runs in the CLI and the worker, never inside a workflow.
import { dirname, relative, resolve } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { realPath, resolveChildPath } from './child-path';
import type { RunbookDefinition } from './definition';
import { normaliseRunbook } from './normalise';
import { PositionIndex } from './positions';
import type { ProblemPath, RunbookProblem, SourcePosition } from './problems';
import { RunbookError, sortProblems } from './problems';
import type { RunbookStep } from './schema';
import { formatBytes, MAX_SOURCE_BYTES, readSourceFile, type SourceRead } from './source-file';
import { validateRunbookDocument } from './validator';
import { limitAliases, limitNesting, type LimitHit } from './yaml-limits';

export interface LoadOptions {
  /** Reads a file; returns undefined when it does not exist. Defaults to the file system (bounded). */
  readFile?: (absolutePath: string) => string | undefined;
  /** How file names appear in problems (default: relative to the working directory). */
  displayName?: (absolutePath: string) => string;
  /** The folder child runbooks must stay in (default: the folder of the runbook checked). */
  runbooksRoot?: string;
  /** The largest file read, in bytes (default MAX_SOURCE_BYTES, 1 MiB). */
  maxBytes?: number;
}

export interface RunbookCheck {
  /** Present when there are no problems. */
  definition?: RunbookDefinition;
  problems: RunbookProblem[];
}

type Unread = Exclude<SourceRead, { kind: 'text' }>;

class Loader {
  private readonly done = new Map<string, RunbookCheck>();
  private readonly loading: string[] = [];
  private readonly read: (path: string) => SourceRead;
  private readonly display: (path: string) => string;
  /** Child runbooks must resolve inside this folder. */
  private readonly root: string;
  private readonly followLinks: boolean;

  constructor(options: LoadOptions, rootRunbook: string) {
    const maxBytes = options.maxBytes ?? MAX_SOURCE_BYTES;
    const custom = options.readFile;
    this.followLinks = custom === undefined;
    this.read = custom
      ? (path) => fromCustomReader(custom(path), maxBytes)
      : (path) => readSourceFile(path, 'runbook file', maxBytes);
    this.display = options.displayName ?? ((path) => relative(process.cwd(), path) || path);
    const root = resolve(options.runbooksRoot ?? dirname(rootRunbook));
    this.root = this.followLinks ? realPath(root) : root;
  }

  checkText(text: string, absolutePath: string, invalidUtf8?: SourcePosition): RunbookCheck {
    try {
      return this.checkYaml(text, absolutePath, invalidUtf8);
    } catch (error) {
      // A safety net under the limits: whatever still overflows is a problem, not a crash.
      if (!(error instanceof RangeError)) throw error;
      return {
        problems: [
          {
            rule: 'limit',
            path: [],
            file: this.display(absolutePath),
            line: 1,
            column: 1,
            message: 'the runbook is too complex to check (nesting or size)',
            hint: 'flatten the structure or split the runbook into child runbooks',
          },
        ],
      };
    }
  }

  private checkYaml(source: string, absolutePath: string, invalidUtf8?: SourcePosition): RunbookCheck {
    const file = this.display(absolutePath);
    const lines = new LineCounter();
    const nesting = limitNesting(source);
    const document = parseDocument(nesting.text, {
      lineCounter: lines,
      prettyErrors: false,
      uniqueKeys: true,
    });
    const at = (hit: LimitHit): RunbookProblem => {
      const position = lines.linePos(hit.offset);
      return {
        rule: 'limit',
        path: [],
        file,
        line: position.line,
        column: position.col,
        message: hit.message,
        hint: hit.hint,
      };
    };
    const early: RunbookProblem[] = nesting.hits.map(at);
    if (invalidUtf8) {
      early.push({
        rule: 'encoding',
        path: [],
        file,
        ...invalidUtf8,
        message: 'invalid UTF-8: this byte is not part of any character',
        hint: 'save the file as UTF-8 text',
      });
    }
    if (document.errors.length > 0) {
      return {
        problems: sortProblems([
          ...early,
          ...document.errors.map((error) => {
            const position = lines.linePos(error.pos[0]);
            return {
              rule: 'yaml' as const,
              path: [],
              file,
              line: position.line,
              column: position.col,
              ...(error.code === 'MULTIPLE_DOCS'
                ? {
                    message: 'YAML: a second document starts here; a runbook file holds one',
                    hint: 'remove the `---` line and what follows, or put each runbook in a file of its own',
                  }
                : {
                    message: `YAML: ${error.message.split('\n')[0] ?? error.message}`,
                    hint: 'check the indentation and quoting here; strings with ": " or "${{" are safest in quotes',
                  }),
            };
          }),
        ]),
      };
    }
    early.push(...limitAliases(document).map(at));
    const positions = new PositionIndex(document, lines);
    // Aliases are within MAX_ALIAS_EXPANSION now (limitAliases); yaml's own count is stricter.
    const raw: unknown = document.toJS({ maxAliasCount: -1 });

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
      ...early,
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
    const resolved = resolveChildPath(parentPath, step.runbook, this.root, {
      followLinks: this.followLinks,
    });
    if (!resolved.ok) {
      problems.push({ rule: 'child-runbook', path: at, message: resolved.message, hint: resolved.hint });
      return undefined;
    }
    const absolute = resolved.absolute;
    if (this.loading.includes(absolute)) {
      problems.push({
        rule: 'child-runbook',
        path: at,
        message: `runbook \`${step.runbook}\` runs itself through its children (a cycle)`,
      });
      return undefined;
    }
    const checked = this.check(absolute);
    if ('kind' in checked) {
      problems.push({
        rule: 'child-runbook',
        path: at,
        message:
          checked.kind === 'missing'
            ? `child runbook \`${step.runbook}\` not found`
            : `child runbook \`${step.runbook}\` ${checked.reason}`,
        hint: 'the path is relative to this runbook file',
      });
      return undefined;
    }
    problems.push(...checked.problems);
    return checked.definition;
  }

  /** Checks a file (cached), or says why it could not be read. */
  check(absolutePath: string): RunbookCheck | Unread {
    const cached = this.done.get(absolutePath);
    if (cached) return cached;
    const read = this.read(absolutePath);
    if (read.kind !== 'text') return read;
    this.loading.push(absolutePath);
    try {
      const checked = this.checkText(read.text, absolutePath, read.invalidUtf8);
      this.done.set(absolutePath, checked);
      return checked;
    } finally {
      this.loading.pop();
    }
  }
}

function fromCustomReader(text: string | undefined, maxBytes: number): SourceRead {
  if (text === undefined) return { kind: 'missing' };
  if (Buffer.byteLength(text) > maxBytes) {
    return {
      kind: 'unreadable',
      reason: `is larger than ${formatBytes(maxBytes)}, the limit for a runbook file`,
    };
  }
  return { kind: 'text', text };
}

function notFound(
  code: 'RUNBOOK_NOT_FOUND' | 'RUNBOOK_UNREADABLE',
  file: string,
  reason: string,
): RunbookError {
  return new RunbookError(code, [{ rule: 'file', path: [], file, message: reason }], `${file}: ${reason}`);
}

function finish(checked: RunbookCheck): RunbookDefinition {
  if (checked.definition && checked.problems.length === 0) return checked.definition;
  throw new RunbookError('RUNBOOK_INVALID', checked.problems);
}

/**
 * Checks a runbook file and its children: all problems, or the normalised definition.
 * Throws RunbookError `RUNBOOK_NOT_FOUND` when the file does not exist, `RUNBOOK_UNREADABLE` when
 * it is a directory or device, larger than the limit, or cannot be read.
 */
export function checkRunbookFile(path: string, options: LoadOptions = {}): RunbookCheck {
  const absolute = resolve(path);
  const checked = new Loader(options, absolute).check(absolute);
  if (!('kind' in checked)) return checked;
  if (checked.kind === 'missing') throw notFound('RUNBOOK_NOT_FOUND', path, 'runbook file not found');
  throw notFound('RUNBOOK_UNREADABLE', path, checked.reason);
}

/** Loads a runbook file: its normalised definition, or RunbookError `RUNBOOK_INVALID` with every problem. */
export function loadRunbookFile(path: string, options: LoadOptions = {}): RunbookDefinition {
  return finish(checkRunbookFile(path, options));
}

/** Checks runbook text as if it were the file `path` (children resolve relative to it). */
export function checkRunbookText(text: string, path: string, options: LoadOptions = {}): RunbookCheck {
  const absolute = resolve(path);
  return new Loader(options, absolute).checkText(text, absolute);
}

/** Loads runbook text as if it were the file `path`; throws RunbookError `RUNBOOK_INVALID`. */
export function loadRunbookText(text: string, path: string, options: LoadOptions = {}): RunbookDefinition {
  return finish(checkRunbookText(text, path, options));
}
