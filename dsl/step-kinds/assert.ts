// `assert`: fail the run unless a condition holds.
import { AssertStep } from '../schema';
import { conditionExpression } from '../templates';
import type { StepKindLanguage } from './facets';
import { STEP_KIND_RUNTIME } from './runtime-table';
import { NONE } from './shared';

export const ASSERT: StepKindLanguage<'assert'> = {
  ...STEP_KIND_RUNTIME.assert,
  schema: AssertStep,
  normalise: (step, { base }) => ({
    kind: 'assert',
    ...base,
    condition: conditionExpression(step.assert),
    ...(step.message !== undefined && { message: step.message }),
  }),
  checkExpressions: (step, path, check) => {
    check.expression(step.assert, [...path, 'assert'], 'condition');
    if (step.message !== undefined) check.templates(step.message, [...path, 'message']);
    return 'dyn';
  },
  ...NONE,
  namesActions: undefined,
  durations: [],
  messages: (step, path) =>
    step.message === undefined
      ? []
      : [{ value: step.message, path: [...path, 'message'], what: 'the `assert` message' }],
  output: { cel: 'bool' },
};
