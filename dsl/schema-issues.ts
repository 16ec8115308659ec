// Turns zod issues for a runbook into problems a person can act on: the step's own kind is used to
// explain a failed step (instead of nine union branches), unknown actions and fields get a
// "did you mean", and a missing field is named as such.
import type { z } from 'zod';
import { ACTION_NAMES } from '../cloud/operations';
import { DURATION_EXAMPLES, DURATION_SOURCE } from './durations';
import type { ProblemPath, RunbookProblem } from './problems';
import { InputSpec, ParallelBranch, Retry, RunbookSchema, STEP_KIND_SCHEMAS, STEP_KINDS } from './schema';
import type { StepKind } from './schema';
import { languageOf } from './step-kinds/table';
import { closestName, suggestionHint } from './suggest';
import { ForeachTargets, TARGETS_FIELDS } from './targets';

/** Whether a field is a step kind's key that names an action (`call:`, `wait:`, `watch:`). */
function namesAction(field: string): boolean {
  return (
    (STEP_KINDS as readonly string[]).includes(field) &&
    languageOf(field as StepKind).namesActions !== undefined
  );
}

type Issue = z.core.$ZodIssue;

const KIND_SCHEMAS: Record<StepKind, { shape: object }> = STEP_KIND_SCHEMAS;
const OUTPUT_FIELDS = ['value', 'secret', 'description'];
/** Fields that hold durations, so a bare number gets a hint about units. */
const DURATION_FIELDS = new Set([
  'timeout',
  'sleep',
  'interval',
  'maxInterval',
  'initialInterval',
  'for',
  'every',
]);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function valueAt(root: unknown, path: ProblemPath): unknown {
  let current = root;
  for (const part of path) {
    if (Array.isArray(current) && typeof part === 'number') current = current[part];
    else if (isPlainObject(current)) current = current[String(part)];
    else return undefined;
  }
  return current;
}

/** A path that holds a step: an item of `steps` or `compensate`, or a single `compensate` step. */
function isStepPath(path: ProblemPath): boolean {
  const last = path[path.length - 1];
  const parent = path[path.length - 2];
  return (
    last === 'compensate' || (typeof last === 'number' && (parent === 'steps' || parent === 'compensate'))
  );
}

function stepKindsIn(value: Record<string, unknown>): StepKind[] {
  return STEP_KINDS.filter((kind) => kind in value);
}

/** The fields allowed at a path, for "did you mean" hints on unknown fields. */
function knownFields(path: ProblemPath, root: unknown): string[] {
  const last = path[path.length - 1];
  const parent = path[path.length - 2];
  if (path.length === 0) return Object.keys(RunbookSchema.shape);
  if (path.length === 2 && path[0] === 'inputs') return Object.keys(InputSpec.shape);
  if (path.length === 2 && path[0] === 'outputs') return OUTPUT_FIELDS;
  if (last === 'retry') return Object.keys(Retry.shape);
  if (last === 'foreach') return Object.keys(ForeachTargets.shape);
  if (last === 'targets' && parent === 'foreach') return [...TARGETS_FIELDS];
  if (typeof last === 'number' && parent === 'parallel') return Object.keys(ParallelBranch.shape);
  const value = valueAt(root, path);
  const kinds = isPlainObject(value) ? stepKindsIn(value) : [];
  const schemas = kinds.length > 0 ? kinds.map((k) => KIND_SCHEMAS[k]) : Object.values(KIND_SCHEMAS);
  return [...new Set(schemas.flatMap((schema) => Object.keys(schema.shape)))];
}

function fieldLabel(path: ProblemPath): string {
  const last = path[path.length - 1];
  if (last === undefined) return 'the runbook';
  if (typeof last === 'number') return `${String(path[path.length - 2] ?? 'item')}[${last}]`;
  return last;
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (isPlainObject(value)) return 'a map';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'number') return 'a number';
  if (typeof value === 'boolean') return 'true/false';
  return typeof value;
}

const EXPECTED: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  array: 'a list',
  object: 'a map',
  record: 'a map',
  null: 'null',
};

const isDurationIssue = (issue: Issue): boolean =>
  issue.code === 'invalid_format' && 'pattern' in issue && String(issue.pattern).includes(DURATION_SOURCE);

function sizeMessage(issue: Issue & { code: 'too_small' | 'too_big' }): string {
  const limit = Number(issue.code === 'too_small' ? issue.minimum : issue.maximum);
  const least = issue.code === 'too_small';
  if (issue.origin === 'array')
    return least && limit === 1
      ? 'must not be empty'
      : `must have ${least ? 'at least' : 'at most'} ${limit} items`;
  if (issue.origin === 'string')
    return least && limit === 1
      ? 'must not be empty'
      : `must be ${least ? 'at least' : 'at most'} ${limit} characters`;
  if (issue.inclusive === false) return `must be ${least ? 'more' : 'less'} than ${limit}`;
  return `must be ${least ? 'at least' : 'at most'} ${limit}`;
}

function problem(
  rule: RunbookProblem['rule'],
  path: ProblemPath,
  message: string,
  hint?: string,
): RunbookProblem {
  return hint === undefined ? { rule, path, message } : { rule, path, message, hint };
}

function stepUnionProblems(
  issue: Issue & { code: 'invalid_union' },
  path: ProblemPath,
  root: unknown,
): RunbookProblem[] {
  const value = valueAt(root, path);
  const kindList = STEP_KINDS.join(', ');
  if (!isPlainObject(value)) {
    return [
      problem(
        'schema',
        path,
        `a step must be a map with an \`id\` and one of: ${kindList}; got ${describeType(value)}`,
      ),
    ];
  }
  const kinds = stepKindsIn(value);
  if (kinds.length === 1) {
    const index = STEP_KINDS.indexOf(kinds[0] as StepKind);
    return schemaProblems(issue.errors[index] ?? [], root, path);
  }
  if (kinds.length > 1) {
    return [
      problem(
        'schema',
        path,
        `a step does one thing, but this one has ${kinds.map((k) => `\`${k}\``).join(' and ')}`,
        'split it into separate steps',
      ),
    ];
  }
  const unknownKeys = Object.keys(value).filter((key) => !knownFields(path, root).includes(key));
  const close = unknownKeys.map((key) => closestName(key, STEP_KINDS)).find((name) => name !== undefined);
  const out = [
    problem(
      'schema',
      path,
      `the step has no kind; give exactly one of: ${kindList}`,
      close ? `did you mean \`${close}\`?` : undefined,
    ),
  ];
  // The id is checked the same way by every kind; report it too, so nothing waits for a second run.
  const idIssues = (issue.errors[0] ?? []).filter((inner) => inner.path[0] === 'id');
  return [...out, ...schemaProblems(idIssues, root, path)];
}

function unionProblems(
  issue: Issue & { code: 'invalid_union' },
  path: ProblemPath,
  root: unknown,
): RunbookProblem[] {
  const value = valueAt(root, path);
  // A `compensate` list: explain its steps (the list option), not the single-step option.
  if (path[path.length - 1] === 'compensate' && Array.isArray(value))
    return schemaProblems(issue.errors[1] ?? [], root, path);
  if (isStepPath(path)) return stepUnionProblems(issue, path, root);
  if (value === undefined) return [problem('schema', path, `missing required field \`${fieldLabel(path)}\``)];
  const typeMismatch = (option: Issue[]) =>
    option.some((inner) => inner.code === 'invalid_type' && inner.path.length === 0);
  const matching = issue.errors.filter((option) => !typeMismatch(option));
  if (matching.length === 0) {
    const expected = issue.errors
      .map((option) => option.find((inner) => inner.code === 'invalid_type' && inner.path.length === 0))
      .map((inner) =>
        inner && 'expected' in inner
          ? (EXPECTED[String(inner.expected)] ?? String(inner.expected))
          : undefined,
      )
      .filter((text): text is string => text !== undefined);
    return [
      problem(
        'schema',
        path,
        `\`${fieldLabel(path)}\` must be ${[...new Set(expected)].join(' or ')}, not ${describeType(value)}`,
      ),
    ];
  }
  const best = matching.reduce((a, b) => (b.length < a.length ? b : a));
  return schemaProblems(best, root, path);
}

function issueProblems(issue: Issue, root: unknown, base: ProblemPath): RunbookProblem[] {
  const path: ProblemPath = [...base, ...issue.path.map((p) => (typeof p === 'number' ? p : String(p)))];
  const label = fieldLabel(path);
  const value = valueAt(root, path);
  switch (issue.code) {
    case 'invalid_union':
      return unionProblems(issue, path, root);
    case 'unrecognized_keys': {
      const known = knownFields(path, root);
      return issue.keys.map((key) => ({
        ...problem(
          'schema',
          [...path, key],
          `unknown field \`${key}\``,
          suggestionHint(key, known, 'fields allowed here'),
        ),
        anchor: 'key' as const,
      }));
    }
    case 'invalid_value':
      if (namesAction(label) && typeof value === 'string') {
        return [
          problem(
            'unknown-action',
            path,
            `unknown action \`${value}\``,
            suggestionHint(value, ACTION_NAMES, 'actions'),
          ),
        ];
      }
      if (value === undefined) return [problem('schema', path, `missing required field \`${label}\``)];
      return [problem('schema', path, `\`${label}\` must be one of: ${issue.values.map(String).join(', ')}`)];
    case 'invalid_type':
      if (value === undefined) return [problem('schema', path, `missing required field \`${label}\``)];
      if (DURATION_FIELDS.has(label) && typeof value === 'number') {
        return [
          problem(
            'duration',
            path,
            `\`${label}\` must be a duration with a unit, such as ${DURATION_EXAMPLES}`,
          ),
        ];
      }
      return [
        problem(
          'schema',
          path,
          `\`${label}\` must be ${EXPECTED[issue.expected] ?? issue.expected}, not ${describeType(value)}`,
        ),
      ];
    case 'invalid_format':
      return [problem(isDurationIssue(issue) ? 'duration' : 'schema', path, `\`${label}\` ${issue.message}`)];
    case 'too_small':
    case 'too_big':
      return [problem('schema', path, `\`${label}\` ${sizeMessage(issue)}`)];
    case 'invalid_key': {
      const inner = issue.issues[0]?.message ?? 'is not allowed';
      return [
        { ...problem('schema', path, `name \`${String(path[path.length - 1])}\` ${inner}`), anchor: 'key' },
      ];
    }
    default:
      return [problem('schema', path, `\`${label}\`: ${issue.message}`)];
  }
}

/** Problems for a list of zod issues; `base` is where the issues' paths start. */
export function schemaProblems(
  issues: readonly Issue[],
  root: unknown,
  base: ProblemPath = [],
): RunbookProblem[] {
  return issues.flatMap((issue) => issueProblems(issue, root, base));
}
