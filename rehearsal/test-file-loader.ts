// Reads a runbook test file: YAML with source positions (the runbook loader's bounded reading,
// nesting and alias limits and position index, dsl/), checked against the test file schema, with
// every case's runbook loaded and checked and its references and inputs checked. Every problem
// comes back at once, as file:line:column with a stable code.
import { calendarFileReader } from '../dsl/calendar-files';
import { compileGovernance, type CompiledGovernance } from '../dsl/policies';
import { dirname, resolve } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import type { z } from 'zod';
import { bindInputs } from '../dsl/inputs';
import { checkRunbookFile } from '../dsl/loader';
import { PositionIndex } from '../dsl/positions';
import type { RunbookDefinition } from '../dsl/definition';
import { readSourceFile } from '../dsl/source-file';
import { schemaIssuesAt, problemsOf } from '../dsl/yaml-document';
import { limitAliases, limitNesting } from '../dsl/yaml-limits';
import { checkStateCase, type LoadedStateCase } from './state-case-loader';
import { strictnessProblems, type StrictnessCode } from './test-file-strictness';
import { placeholderIds, referenceProblems, resolveReferences } from './cloud-references';
import { RunbookTestFile, type TestCase } from './test-file-schema';

export type TestFileProblemCode =
  | StrictnessCode
  | 'TEST_FILE_UNREADABLE'
  | 'TEST_FILE_YAML'
  | 'TEST_FILE_INVALID'
  | 'TEST_INPUT_INVALID'
  | 'TEST_RUNBOOK_INVALID'
  | 'TEST_STATE_INVALID';

export interface TestFileProblem {
  code: TestFileProblemCode;
  file: string;
  line: number;
  column: number;
  message: string;
  hint?: string;
}

export interface LoadedCase extends TestCase {
  /** The test file it is in, as shown to the user. */
  file: string;
  definition: RunbookDefinition;
  /** The file's `governance`, compiled: the case runs on a worker that enforces it. */
  governance?: CompiledGovernance;
  /** Where a part of the case (a path from the case, e.g. `['expect', 'steps']`) is in the file. */
  locate(path: readonly (string | number)[]): { line: number; column: number };
}

export type TestFileCheck =
  | { ok: true; cases: LoadedCase[]; stateCases: LoadedStateCase[] }
  | { ok: false; problems: TestFileProblem[] };

type Path = (string | number)[];

/**
 * The schema's issues with a case that fits neither kind told as the issues of the kind it is
 * meant to be — a state case when it has `state:`, else a runbook case — rather than as one
 * "invalid input" for the whole case.
 */
function caseIssues(issues: readonly z.core.$ZodIssue[], value: unknown): z.core.$ZodIssue[] {
  const cases = (value as { cases?: unknown } | null)?.cases;
  return issues.flatMap((issue) => {
    const [top, index] = issue.path;
    if (issue.code !== 'invalid_union' || issue.path.length !== 2 || top !== 'cases') return [issue];
    const entry = Array.isArray(cases) && typeof index === 'number' ? (cases[index] as unknown) : undefined;
    const isState = entry !== null && typeof entry === 'object' && 'state' in entry;
    const branch = issue.errors[isState ? 1 : 0] ?? [];
    return branch.map((inner) => ({ ...inner, path: [...issue.path, ...inner.path] }));
  });
}

export function loadTestFile(absolutePath: string, display: (absolute: string) => string): TestFileCheck {
  const file = display(absolutePath);
  const problem = problemsOf<TestFileProblemCode>(file);
  const read = readSourceFile(absolutePath, 'test file');
  if (read.kind !== 'text')
    return {
      ok: false,
      problems: [
        problem(
          'TEST_FILE_UNREADABLE',
          read.kind === 'missing' ? 'test file not found' : `test file ${read.reason}`,
        ),
      ],
    };
  const lines = new LineCounter();
  const nesting = limitNesting(read.text);
  const document = parseDocument(nesting.text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const offsetAt = (offset: number) => {
    const { line, col } = lines.linePos(offset);
    return { line, column: col };
  };
  const early = [
    ...nesting.hits.map((hit) => problem('TEST_FILE_YAML', hit.message, offsetAt(hit.offset), hit.hint)),
    ...document.errors.map((error) =>
      problem(
        'TEST_FILE_YAML',
        `YAML: ${error.message.split('\n')[0] ?? error.message}`,
        offsetAt(error.pos[0]),
      ),
    ),
  ];
  if (early.length === 0)
    early.push(
      ...limitAliases(document).map((hit) => problem('TEST_FILE_YAML', hit.message, offsetAt(hit.offset))),
    );
  if (early.length > 0) return { ok: false, problems: early };

  const positions = new PositionIndex(document, lines);
  const at = (path: Path, anchor: 'key' | 'value' = 'value') => positions.locate(path, anchor);
  const value: unknown = document.toJS({ maxAliasCount: -1 });
  const parsed = RunbookTestFile.safeParse(value);
  if (!parsed.success) {
    return {
      ok: false,
      problems: schemaIssuesAt(caseIssues(parsed.error.issues, value), positions).map(
        ({ message, at: where }) => problem('TEST_FILE_INVALID', message, where),
      ),
    };
  }

  const problems: TestFileProblem[] = [];
  const cases: LoadedCase[] = [];
  const stateCases: LoadedStateCase[] = [];
  let governance: CompiledGovernance | undefined;
  if (parsed.data.governance !== undefined) {
    const compiled = compileGovernance(parsed.data.governance, calendarFileReader(dirname(absolutePath)));
    if (!compiled.ok)
      return {
        ok: false,
        problems: compiled.problems.map((message) =>
          problem('TEST_FILE_INVALID', `governance.${message}`, at(['governance'], 'key')),
        ),
      };
    governance = compiled.governance;
  }
  const approvalRules = (governance?.rules ?? []).flatMap((rule) =>
    rule.spec.effect === 'require-approval' ? [rule.spec.name] : [],
  );
  parsed.data.cases.forEach((entry, index) => {
    const base: Path = ['cases', index];
    const names = {
      services: new Set(entry.cloud.services.map((s) => s.name)),
      vpcs: new Set(entry.cloud.vpcs.map((v) => v.name)),
    };
    for (const service of entry.cloud.services) {
      if (service.vpc !== undefined && !names.vpcs.has(service.vpc))
        problems.push(
          problem(
            'TEST_REFERENCE_UNKNOWN',
            `service ${service.name}: this case's cloud has no VPC named "${service.vpc}"`,
            at([...base, 'cloud']),
          ),
        );
    }
    if ('state' in entry) {
      const checked = checkStateCase(entry, absolutePath, names, display);
      if (checked.ok)
        stateCases.push({
          ...entry,
          file,
          loadedState: checked.state,
          locate: (path) => at([...base, ...path]),
          ...(governance !== undefined && { governance }),
        });
      else
        for (const found of checked.problems)
          problems.push(
            problem(found.code, found.message, at([...base, ...found.path], found.anchor), found.hint),
          );
      return;
    }
    const testCase = entry;
    let unknownReferences = 0;
    const readable = { ...names, inputs: new Set(Object.keys(testCase.inputs)) };
    for (const [field, value, known] of [
      ['inputs', testCase.inputs, names],
      ['whenHeld', testCase.whenHeld, names],
      ['expect', testCase.expect, readable],
    ] as const) {
      for (const found of referenceProblems(value, known)) {
        unknownReferences++;
        problems.push(problem('TEST_REFERENCE_UNKNOWN', found.message, at([...base, field, ...found.path])));
      }
    }
    const runbookPath = resolve(dirname(absolutePath), testCase.runbook);
    const checked = checkRunbookFile(runbookPath, { displayName: display });
    if (checked.definition === undefined) {
      const first = checked.problems[0];
      const detail = first
        ? `${first.file ?? testCase.runbook}${first.line !== undefined ? `:${first.line}:${first.column ?? 1}` : ''}: ${first.message}`
        : 'runbook file not found';
      problems.push(
        problem(
          'TEST_RUNBOOK_INVALID',
          `runbook ${testCase.runbook}: ${detail}`,
          at([...base, 'runbook']),
          'tideline validate shows every problem of the runbook',
        ),
      );
      return;
    }
    cases.push({
      ...testCase,
      file,
      locate: (path) => at([...base, ...path]),
      definition: checked.definition,
      ...(governance !== undefined && { governance }),
    });
    for (const found of strictnessProblems(testCase, checked.definition, testCase.runbook, approvalRules))
      problems.push(
        problem(found.code, found.message, at([...base, ...found.path], found.anchor), found.hint),
      );
    if (unknownReferences > 0) return;
    const bound = bindInputs(
      checked.definition.inputs,
      resolveReferences(testCase.inputs, placeholderIds(names)),
    );
    if (!bound.ok) {
      for (const found of bound.problems)
        problems.push(
          problem('TEST_INPUT_INVALID', found.message, at([...base, 'inputs', found.input]), found.hint),
        );
    }
  });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, cases, stateCases };
}
