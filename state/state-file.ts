// Reads a state file: YAML with positions, checked against its schema, every expectation compiled
// against the service answer's type, every repair runbook loaded and checked, and the inputs each
// repair gives it. All problems come back at once as file:line:column with a stable code, as for
// runbooks and their tests.
import { dirname, resolve } from 'node:path';
import { checkRunbookFile } from '../dsl/loader';
import type { RunbookDefinition } from '../dsl/definition';
import { hasTemplate } from '../dsl/templates';
import {
  parseYamlText,
  readYamlDocument,
  schemaIssuesAt,
  type YamlRead,
  problemsOf,
} from '../dsl/yaml-document';
import { repairWithProblems } from './repair-plan';
import { compileExpectation, type Expectation } from './state-rules';
import { StateFile, type StateRule } from './state-schema';

export type StateProblemCode =
  'STATE_FILE_UNREADABLE' | 'STATE_FILE_YAML' | 'STATE_FILE_INVALID' | 'STATE_REPAIR_INVALID';

export interface StateProblem {
  code: StateProblemCode;
  file: string;
  line: number;
  column: number;
  message: string;
  hint?: string;
}

export interface LoadedRule extends StateRule {
  expectation: Expectation;
  /** The repair runbook, loaded and checked. */
  repairDefinition?: RunbookDefinition;
}

export interface LoadedState {
  file: string;
  name: string;
  description?: string;
  projectId?: string;
  rules: LoadedRule[];
}

export type StateFileCheck = { ok: true; state: LoadedState } | { ok: false; problems: StateProblem[] };

type Path = (string | number)[];

/** The repair runbook checked; a missing or unreadable file is a problem like any other. */
function checkRepair(
  path: string,
  display: (absolute: string) => string,
): ReturnType<typeof checkRunbookFile> {
  try {
    return checkRunbookFile(path, { displayName: display });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { problems: [{ rule: 'child-runbook', path: [], message }] };
  }
}

export function loadStateFile(absolutePath: string, display: (absolute: string) => string): StateFileCheck {
  return checkState(readYamlDocument(absolutePath, 'state file'), absolutePath, display);
}

/** A state file's text, checked as if it were at `absolutePath` (repair runbooks resolve from there). */
export function loadStateText(
  text: string,
  absolutePath: string,
  display: (absolute: string) => string,
): StateFileCheck {
  return checkState(parseYamlText(text), absolutePath, display);
}

function checkState(
  read: YamlRead,
  absolutePath: string,
  display: (absolute: string) => string,
): StateFileCheck {
  const file = display(absolutePath);
  const problem = problemsOf<StateProblemCode>(file);
  if (!read.ok)
    return {
      ok: false,
      problems: read.problems.map((p) =>
        problem(
          p.kind === 'unreadable' ? 'STATE_FILE_UNREADABLE' : 'STATE_FILE_YAML',
          p.message,
          p.at,
          p.hint,
        ),
      ),
    };
  const at = (path: Path, anchor: 'key' | 'value' = 'value') => read.positions.locate(path, anchor);
  const parsed = StateFile.safeParse(read.value);
  if (!parsed.success) {
    return {
      ok: false,
      problems: schemaIssuesAt(parsed.error.issues, read.positions).map(({ message, at: where }) =>
        problem('STATE_FILE_INVALID', message, where),
      ),
    };
  }
  const problems: StateProblem[] = [];
  const rules: LoadedRule[] = [];
  const names = new Set<string>();
  parsed.data.rules.forEach((rule, index) => {
    const base: Path = ['rules', index];
    if (names.has(rule.name))
      problems.push(
        problem(
          'STATE_FILE_INVALID',
          `rules.${index}.name: a second rule named ${rule.name}`,
          at([...base, 'name']),
        ),
      );
    names.add(rule.name);
    if (hasTemplate(JSON.stringify(rule.select)))
      problems.push(
        problem(
          'STATE_FILE_INVALID',
          `rules.${index}.select: a state file has no inputs, so its selector takes plain values, not \${{ … }}`,
          at([...base, 'select']),
        ),
      );
    const compiled = compileExpectation(rule.expect);
    if (!compiled.ok) {
      problems.push(
        problem('STATE_FILE_INVALID', `rules.${index}.expect: ${compiled.problem}`, at([...base, 'expect'])),
      );
      return;
    }
    const loaded: LoadedRule = { ...rule, expectation: compiled.expectation };
    if (rule.repair !== undefined) {
      const runbookPath = resolve(dirname(absolutePath), rule.repair.runbook);
      const checked = checkRepair(runbookPath, display);
      if (!checked.definition || checked.problems.length > 0) {
        const first = checked.problems[0];
        problems.push(
          problem(
            'STATE_REPAIR_INVALID',
            `rules.${index}.repair.runbook: ${rule.repair.runbook} ${first ? `has problems (${first.message})` : 'cannot be loaded'}`,
            at([...base, 'repair', 'runbook']),
            `tideline validate ${display(runbookPath)}`,
          ),
        );
      } else {
        loaded.repairDefinition = checked.definition;
        for (const found of repairWithProblems(rule.repair.with, checked.definition))
          problems.push(
            problem(
              'STATE_REPAIR_INVALID',
              `rules.${index}.repair.with${found.path.map((part) => `.${part}`).join('')}: ${found.message}`,
              at([...base, 'repair', 'with', ...found.path]),
            ),
          );
      }
    }
    rules.push(loaded);
  });
  if (problems.length > 0) return { ok: false, problems };
  const state: LoadedState = { file, name: parsed.data.name, rules };
  if (parsed.data.description !== undefined) state.description = parsed.data.description;
  if (parsed.data.project_id !== undefined) state.projectId = parsed.data.project_id;
  return { ok: true, state };
}
