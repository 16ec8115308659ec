// `call`: run one Cloud API action.
import type { ActionName } from '../../cloud/operations';
import { operations } from '../../cloud/operations';
import { CallStep } from '../schema';
import { callInputProblems } from '../validator-actions';
import type { StepKindLanguage } from './facets';
import { STEP_KIND_RUNTIME } from './runtime-table';
import { NONE, withInput } from './shared';

export const CALL: StepKindLanguage<'call'> = {
  ...STEP_KIND_RUNTIME.call,
  schema: CallStep,
  normalise: (step, { base }) => {
    const action = step.call as ActionName;
    return {
      kind: 'call',
      ...base,
      action,
      actionKind: operations[action].kind,
      with: withInput(step.with),
      adopt: step.adopt ?? false,
    };
  },
  checkExpressions: (step, path, check) => {
    check.templates(step.with ?? {}, [...path, 'with']);
    return 'dyn';
  },
  ...NONE,
  namesActions: 'any',
  durations: [],
  inputProblems: (step, path) => callInputProblems(step, path),
  output: { answerOf: (step) => step.call as ActionName },
};
