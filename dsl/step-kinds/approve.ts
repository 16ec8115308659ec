// `approve`: wait for a human to approve or reject; a rejection fails the step.
import { ApproveStep } from '../schema';
import { approverProblems } from '../validator-approvals';
import type { StepKindLanguage } from './facets';
import { STEP_KIND_RUNTIME } from './runtime-table';
import { NONE } from './shared';

export const APPROVE: StepKindLanguage<'approve'> = {
  ...STEP_KIND_RUNTIME.approve,
  schema: ApproveStep,
  normalise: (step, { base }) => ({
    kind: 'approve',
    ...base,
    message: step.approve,
    default: step.default ?? 'reject',
    ...(step.approvers !== undefined && {
      approvers: [...step.approvers],
      minApprovals: step.minApprovals ?? 1,
      allowSelfApproval: step.allowSelfApproval ?? true,
    }),
  }),
  checkExpressions: (step, path, check) => {
    check.templates(step.approve, [...path, 'approve']);
    return 'dyn';
  },
  ...NONE,
  namesActions: undefined,
  durations: [],
  messages: (step, path) => [
    { value: step.approve, path: [...path, 'approve'], what: 'the `approve` message' },
  ],
  problems: (step, path) => [
    ...(step.onFailure === 'hold'
      ? [
          {
            rule: 'on-failure' as const,
            path: [...path, 'onFailure'],
            message: 'an approval cannot hold the run: a rejection is a decision, and it rolls back',
            hint: 'remove `onFailure` here',
          },
        ]
      : []),
    ...(step.default !== undefined && step.timeout === undefined
      ? [
          {
            rule: 'approve-default' as const,
            path: [...path, 'default'],
            message: '`default` applies when `timeout` passes, but this approval has no `timeout`',
            hint: 'add a timeout, e.g. timeout: 1h',
          },
        ]
      : []),
    ...approverProblems(step, path),
  ],
  output: { cel: 'dyn' },
};
