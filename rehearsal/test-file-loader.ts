// Reads a runbook test file: YAML with source positions (the runbook loader's bounded reading,
// nesting and alias limits and position index, dsl/), checked against the test file schema, with
// every case's runbook loaded and checked and its references and inputs checked. Every problem
// comes back at once, as file:line:column with a stable code.
import { calendarFileReader } from '../dsl/calendar-files';
import { compileGovernance, type CompiledGovernance } from '../dsl/policies';
import { dirname, resolve } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { bindInputs } from '../dsl/inputs';
import { checkRunbookFile } from '../dsl/loader';
import { PositionIndex } from '../dsl/positions';
import type { RunbookDefinition } from '../dsl/definition';
import { readSourceFile } from '../dsl/source-file';
import { schemaIssuesAt, problemsOf } from '../dsl/yaml-document';
import { limitAliases, limitNesting } from '../dsl/yaml-limits';
import { strictnessProblems, type StrictnessCode } from './test-file-strictness';
import { placeholderIds, referenceProblems, resolveReferences } from './cloud-references';
import { RunbookTestFile, type TestCase } from './test-file-schema';

export type TestFileProblemCode =
  | StrictnessCode
  | 'TEST_FILE_UNREADABLE'
  | 'TEST_FILE_YAML'
  | 'TEST_FILE_INVALID'
  | 'TEST_INPUT_INVALID'
  | 'TEST_RUNBOOK_INVALID';

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

export type TestFileCheck = { ok: true; cases: LoadedCase[] } | { ok: false; problems: TestFileProblem[] };

type Path = (string | number)[];

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
  const parsed = RunbookTestFile.safeParse(document.toJS({ maxAliasCount: -1 }));
  if (!parsed.success) {
    return {
      ok: false,
      problems: schemaIssuesAt(parsed.error.issues, positions).map(({ message, at: where }) =>
        problem('TEST_FILE_INVALID', message, where),
      ),
    };
  }

  const problems: TestFileProblem[] = [];
  const cases: LoadedCase[] = [];
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
  parsed.data.cases.forEach((testCase, index) => {
    const base: Path = ['cases', index];
    const names = {
      services: new Set(testCase.cloud.services.map((s) => s.name)),
      vpcs: new Set(testCase.cloud.vpcs.map((v) => v.name)),
    };
    for (const service of testCase.cloud.services) {
      if (service.vpc !== undefined && !names.vpcs.has(service.vpc))
        problems.push(
          problem(
            'TEST_REFERENCE_UNKNOWN',
            `service ${service.name}: this case's cloud has no VPC named "${service.vpc}"`,
            at([...base, 'cloud']),
          ),
        );
    }
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
  return problems.length > 0 ? { ok: false, problems } : { ok: true, cases };
}
