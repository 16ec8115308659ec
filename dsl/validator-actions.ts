// Checks of what steps hand to actions and child runbooks: `with` against the action's request
// schema (literal values fully; templated ones only for existence, since their type is known only
// at run time), `wait` on read actions only, `adopt` on creates only, literal secrets, and a child
// runbook's inputs.
import type { ActionName } from '../cloud/operations';
import { validateActionInput } from '../cloud/action-input';
import { ACTION_CATALOGUE } from './actions';
import type { RunbookDefinition } from './definition';
import { checkInputValue } from './inputs';
import type { ProblemPath, RunbookProblem } from './problems';
import type { CallStep, RunbookStep } from './schema';
import { suggestionHint } from './suggest';
import { hasTemplate } from './templates';

/** Stands in for a templated value: no request schema accepts it, so refinements never misfire. */
const TEMPLATED = Symbol('templated');

function placeholders(value: unknown, path: ProblemPath, templated: ProblemPath[]): unknown {
  if (hasTemplate(value)) {
    templated.push(path);
    return TEMPLATED;
  }
  if (Array.isArray(value))
    return value.map((item, index) => placeholders(item, [...path, index], templated));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, placeholders(item, [...path, key], templated)]),
    );
  }
  return value;
}

const startsWith = (path: ProblemPath, prefix: ProblemPath) =>
  prefix.length <= path.length && prefix.every((part, index) => String(part) === String(path[index]));

/**
 * The unknown fields an issue reports, whether it lists them (`unknown field(s): a, b`) or has one
 * per issue at the field's own path (`unknown field "a"`).
 */
function unknownFieldNames(issue: { path: ProblemPath; message: string }): string[] | undefined {
  const listed = /^unknown field\(s\): (.*)$/.exec(issue.message);
  if (listed?.[1]) return listed[1].split(', ');
  if (!issue.message.startsWith('unknown field')) return undefined;
  const last = issue.path[issue.path.length - 1];
  return last === undefined ? undefined : [String(last)];
}

/** zod's generic wording, said the way the rest of the validator says it. */
function plainMessage(message: string): string {
  const option = /^Invalid option: expected one of (.*)$/.exec(message);
  if (option?.[1]) return `must be one of ${option[1].replace(/"/g, '').split('|').join(', ')}`;
  const type = /^Invalid input: expected (\w+), received (\w+)$/.exec(message);
  if (type)
    return `must be ${type[1] === 'array' ? 'a list' : `a ${type[1]}`}, not ${type[2] === 'array' ? 'a list' : `a ${type[2]}`}`;
  return message;
}

function actionInputProblems(
  action: ActionName,
  input: Record<string, unknown>,
  stepPath: ProblemPath,
  hasWith: boolean,
): RunbookProblem[] {
  const info = ACTION_CATALOGUE[action];
  const withPath = [...stepPath, 'with'];
  const templated: ProblemPath[] = [];
  const checked = validateActionInput(action, placeholders(input, [], templated) as Record<string, unknown>);
  if (checked.ok) return [];
  const fieldNames = info.fields.map((f) => f.name);
  const problems: RunbookProblem[] = [];
  for (const issue of checked.issues) {
    const unknownKeys = unknownFieldNames(issue);
    if (unknownKeys) {
      for (const key of unknownKeys) {
        problems.push({
          rule: 'action-input',
          path: [...withPath, key],
          anchor: 'key',
          message: `\`${action}\` has no input field \`${key}\``,
          hint: suggestionHint(key, fieldNames, `fields of ${action}`),
        });
      }
      continue;
    }
    if (templated.some((prefix) => startsWith(issue.path, prefix))) continue;
    const field = issue.path[0];
    if (issue.path.length === 1 && typeof field === 'string' && input[field] === undefined) {
      problems.push({
        rule: 'action-input',
        path: hasWith ? withPath : stepPath,
        anchor: 'key',
        message: `\`${action}\` needs \`${field}\` in \`with\``,
        hint: `required fields of ${action}: ${info.requiredFields.join(', ')}`,
      });
      continue;
    }
    const label = issue.path.length > 0 ? ` \`${issue.path.join('.')}\`` : '';
    const text = plainMessage(issue.message);
    const message = `\`${action}\`${label}${text.startsWith('must') ? ' ' : ': '}${text}`;
    problems.push({ rule: 'action-input', path: [...withPath, ...issue.path], message });
  }
  return problems;
}

function secretLiteralProblems(
  action: ActionName,
  input: Record<string, unknown>,
  stepPath: ProblemPath,
): RunbookProblem[] {
  return ACTION_CATALOGUE[action].secretInputFields
    .filter((field) => input[field] !== undefined && !hasTemplate(input[field]))
    .map((field) => ({
      rule: 'secret-leak' as const,
      path: [...stepPath, 'with', field],
      message: `\`${field}\` is written into the runbook in plain text`,
      hint: 'declare a `secret: true` input and pass "${{ inputs.<name> }}"',
    }));
}

function childInputProblems(
  step: RunbookStep,
  child: RunbookDefinition,
  stepPath: ProblemPath,
): RunbookProblem[] {
  const given = step.with ?? {};
  const problems: RunbookProblem[] = [];
  const declared = Object.keys(child.inputs);
  for (const [name, value] of Object.entries(given)) {
    const spec = child.inputs[name];
    if (!spec) {
      problems.push({
        rule: 'child-inputs',
        path: [...stepPath, 'with', name],
        anchor: 'key',
        message: `child runbook \`${child.name}\` has no input \`${name}\``,
        hint: suggestionHint(name, declared, 'its inputs'),
      });
      continue;
    }
    if (hasTemplate(value)) continue;
    const checked = checkInputValue(spec, value);
    if ('error' in checked) {
      problems.push({
        rule: 'child-inputs',
        path: [...stepPath, 'with', name],
        message: `input \`${name}\` of \`${child.name}\` ${checked.error}`,
      });
    }
  }
  for (const [name, spec] of Object.entries(child.inputs)) {
    if (spec.required && spec.default === undefined && given[name] === undefined) {
      problems.push({
        rule: 'child-inputs',
        path: step.with ? [...stepPath, 'with'] : stepPath,
        anchor: 'key',
        message: `child runbook \`${child.name}\` needs input \`${name}\``,
      });
    }
  }
  return problems;
}

/** Problems in how one step uses its action or child runbook. */
/** A call's `with` against the action's request, its literal secrets, and `adopt` on creates only. */
export function callInputProblems(step: CallStep, path: ProblemPath): RunbookProblem[] {
  const action = step.call as ActionName;
  const problems = [
    ...actionInputProblems(action, step.with ?? {}, path, step.with !== undefined),
    ...secretLiteralProblems(action, step.with ?? {}, path),
  ];
  if (step.adopt !== undefined && ACTION_CATALOGUE[action].kind !== 'create') {
    problems.push({
      rule: 'adopt-not-create',
      path: [...path, 'adopt'],
      message: `\`adopt\` applies to create actions only; \`${action}\` is a ${ACTION_CATALOGUE[action].kind} action`,
      hint: 'remove `adopt`',
    });
  }
  return problems;
}

/** A polled action (a wait's, a watch's) must be a read; its `with` is checked against the request. */
export function readInputProblems(
  action: ActionName,
  field: string,
  input: Record<string, unknown> | undefined,
  path: ProblemPath,
): RunbookProblem[] {
  const info = ACTION_CATALOGUE[action];
  if (info.kind !== 'read') {
    return [
      {
        rule: 'wait-not-read',
        path: [...path, field],
        message: `\`${field}\` polls read actions only; \`${action}\` is a ${info.kind} action`,
        hint: `run it with \`call: ${action}\`, then ${field} on a read action such as service.get`,
      },
    ];
  }
  return actionInputProblems(action, input ?? {}, path, input !== undefined);
}

/** A child runbook's inputs against its declaration (nothing when the child could not be loaded). */
export function runbookInputProblems(
  step: RunbookStep,
  path: ProblemPath,
  childRunbook: (step: RunbookStep) => RunbookDefinition | undefined,
): RunbookProblem[] {
  const child = childRunbook(step);
  return child ? childInputProblems(step, child, path) : [];
}
