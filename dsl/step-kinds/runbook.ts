// `runbook`: run another runbook as a child workflow.
import { RunbookStep } from '../schema';
import { runbookInputProblems } from '../validator-actions';
import type { StepKindLanguage } from './facets';
import { STEP_KIND_RUNTIME } from './runtime-table';
import { NONE, NormaliseError, withInput } from './shared';

export const RUNBOOK: StepKindLanguage<'runbook'> = {
  ...STEP_KIND_RUNTIME.runbook,
  schema: RunbookStep,
  normalise: (step, { base, childRunbook }) => {
    if (!childRunbook) {
      throw new NormaliseError(`step \`${step.id}\` runs a child runbook, but no child resolver was given`);
    }
    return {
      kind: 'runbook',
      ...base,
      path: step.runbook,
      with: withInput(step.with),
      runbook: childRunbook(step),
    };
  },
  checkExpressions: (step, path, check) => {
    check.templates(step.with ?? {}, [...path, 'with']);
    return 'dyn';
  },
  ...NONE,
  namesActions: undefined,
  durations: [],
  inputProblems: runbookInputProblems,
  output: { childOutputs: (step) => step },
};
