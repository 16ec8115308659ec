// `foreach`: run steps once per item of a list (a CEL list, or services selected by `targets`).
import {
  DEFAULT_FOREACH_CONCURRENCY,
  DEFAULT_FOREACH_VARIABLE,
  DEFAULT_RAMP_FACTOR,
  DEFAULT_RAMP_START,
} from '../definition';
import type { RunbookProblem } from '../problems';
import { ForeachStep } from '../schema';
import { targetsListStepId, targetsProblems } from '../targets';
import { targetsDefinition, targetsItems } from '../targets-filter';
import { conditionExpression } from '../templates';
import type { StepKindLanguage } from './facets';
import { STEP_KIND_RUNTIME } from './runtime-table';
import { NONE } from './shared';

export const FOREACH: StepKindLanguage<'foreach'> = {
  ...STEP_KIND_RUNTIME.foreach,
  schema: ForeachStep,
  normalise: (step, { base, nested }) => {
    const targets =
      typeof step.foreach === 'string' ? undefined : targetsDefinition(step.foreach.targets, step.id);
    return {
      kind: 'foreach',
      ...base,
      items:
        typeof step.foreach === 'string'
          ? conditionExpression(step.foreach)
          : targetsItems(step.foreach.targets, targetsListStepId(step.id)),
      as: step.as ?? DEFAULT_FOREACH_VARIABLE,
      concurrency: step.concurrency ?? step.waves ?? DEFAULT_FOREACH_CONCURRENCY,
      // Set only when written: definitions without them stay exactly as before.
      ...(step.maxErrors !== undefined && { maxErrors: step.maxErrors }),
      ...(step.onMaxErrors !== undefined && { onMaxErrors: step.onMaxErrors }),
      ...(step.ramp !== undefined && {
        ramp: {
          start: step.ramp.start ?? DEFAULT_RAMP_START,
          factor: step.ramp.factor ?? DEFAULT_RAMP_FACTOR,
        },
      }),
      ...(step.waves !== undefined && { waves: step.waves }),
      ...(targets !== undefined && { targets }),
      steps: nested(step.steps),
    };
  },
  checkExpressions: (step, path, check) => {
    let items = 'dyn';
    if (typeof step.foreach !== 'string') {
      // The selector's values are evaluated where the foreach starts; its items are listed services.
      check.templates(step.foreach.targets, [...path, 'foreach', 'targets']);
      items = check.actionType('service.list');
    } else items = check.expression(step.foreach, [...path, 'foreach'], 'items');
    if (typeof step.concurrency === 'string') check.templates(step.concurrency, [...path, 'concurrency']);
    return items;
  },
  ...NONE,
  namesActions: undefined,
  durations: [],
  problems: (step, path) => {
    const problems: RunbookProblem[] = [];
    if (step.onMaxErrors !== undefined && step.maxErrors === undefined) {
      problems.push({
        rule: 'foreach-budget',
        path: [...path, 'onMaxErrors'],
        message:
          '`onMaxErrors` says what happens once `maxErrors` is exceeded, but this foreach has no `maxErrors`',
        hint: 'add one, e.g. maxErrors: 2 or maxErrors: "10%" (0 stops at the first failed item)',
      });
    }
    if (step.waves !== undefined && step.ramp !== undefined) {
      problems.push({
        rule: 'foreach-budget',
        path: [...path, 'waves'],
        message: 'a foreach starts its items either in `waves` or along a `ramp`, not both',
        hint: 'keep `waves` for fixed waves that each wait for the one before, or `ramp` to widen while items succeed',
      });
    }
    if (typeof step.foreach !== 'string')
      problems.push(...targetsProblems(step.foreach.targets, [...path, 'foreach', 'targets']));
    if (['inputs', 'steps', 'result'].includes(step.as ?? '')) {
      problems.push({
        rule: 'schema',
        path: [...path, 'as'],
        message: `the loop variable cannot be called \`${step.as}\``,
      });
    }
    return problems;
  },
  // A foreach over `targets` lists the services in a step of its own, right before it.
  generatedIds: (step, path) =>
    typeof step.foreach === 'string'
      ? []
      : [{ id: targetsListStepId(step.id), path: [...path, 'foreach', 'targets'] }],
  // One entry per item: the body's step ids to their outputs (null for an unfinished item).
  output: { cel: 'list<map<string, dyn>>' },
};
