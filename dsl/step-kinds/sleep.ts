// `sleep`: pause for a while.
import { SleepStep } from '../schema';
import type { StepKindLanguage } from './facets';
import { STEP_KIND_RUNTIME } from './runtime-table';
import { NONE, durationValue } from './shared';

export const SLEEP: StepKindLanguage<'sleep'> = {
  ...STEP_KIND_RUNTIME.sleep,
  schema: SleepStep,
  normalise: (step, { base }) => ({ kind: 'sleep', ...base, durationMs: durationValue(step.sleep) }),
  checkExpressions: (step, path, check) => {
    check.templates(step.sleep, [...path, 'sleep']);
    return 'dyn';
  },
  ...NONE,
  namesActions: undefined,
  durations: ['sleep'],
  output: { cel: 'dyn' },
};
