// `fail`: fail the run with a message (usually with `if`).
import { FailStep } from '../schema';
import type { StepKindLanguage } from './facets';
import { STEP_KIND_RUNTIME } from './runtime-table';
import { NONE } from './shared';

export const FAIL: StepKindLanguage<'fail'> = {
  ...STEP_KIND_RUNTIME.fail,
  schema: FailStep,
  normalise: (step, { base }) => ({ kind: 'fail', ...base, message: step.fail }),
  checkExpressions: (step, path, check) => {
    check.templates(step.fail, [...path, 'fail']);
    return 'dyn';
  },
  ...NONE,
  namesActions: undefined,
  durations: [],
  messages: (step, path) => [{ value: step.fail, path: [...path, 'fail'], what: 'the `fail` message' }],
  output: { cel: 'dyn' },
};
