// `wait`: poll a read action until a condition holds, within `timeout`.
import type { ActionName } from '../../cloud/operations';
import {
  DEFAULT_WAIT_INTERVAL_MS,
  DEFAULT_WAIT_MAX_INTERVAL_MS,
  DEFAULT_WAIT_TIMEOUT_MS,
} from '../definition';
import { parseDuration } from '../durations';
import type { ProblemPath, RunbookProblem } from '../problems';
import { WaitStep } from '../schema';
import { conditionExpression } from '../templates';
import { readInputProblems } from '../validator-actions';
import type { StepKindLanguage } from './facets';
import { STEP_KIND_RUNTIME } from './runtime-table';
import { NONE, withInput } from './shared';

/** `interval` must not be longer than `maxInterval`. */
export function intervalOrder(
  interval: string | undefined,
  maxInterval: string | undefined,
  path: ProblemPath,
): RunbookProblem[] {
  return interval !== undefined &&
    maxInterval !== undefined &&
    parseDuration(interval) > parseDuration(maxInterval)
    ? [{ rule: 'duration', path: [...path, 'interval'], message: '`interval` is longer than `maxInterval`' }]
    : [];
}

export const WAIT: StepKindLanguage<'wait'> = {
  ...STEP_KIND_RUNTIME.wait,
  schema: WaitStep,
  normalise: (step, { base }) => ({
    kind: 'wait',
    ...base,
    action: step.wait as ActionName,
    with: withInput(step.with),
    ...(step.until !== undefined && { until: conditionExpression(step.until) }),
    ...(step.failIf !== undefined && { failIf: conditionExpression(step.failIf) }),
    untilDeleted: step.untilDeleted ?? false,
    intervalMs: step.interval !== undefined ? parseDuration(step.interval) : DEFAULT_WAIT_INTERVAL_MS,
    maxIntervalMs:
      step.maxInterval !== undefined ? parseDuration(step.maxInterval) : DEFAULT_WAIT_MAX_INTERVAL_MS,
    timeoutMs: base.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS,
  }),
  checkExpressions: (step, path, check) => {
    check.templates(step.with ?? {}, [...path, 'with']);
    const action = step.wait as ActionName;
    if (step.until !== undefined) check.expression(step.until, [...path, 'until'], 'condition', action);
    if (step.failIf !== undefined) check.expression(step.failIf, [...path, 'failIf'], 'condition', action);
    return 'dyn';
  },
  ...NONE,
  namesActions: 'read',
  durations: ['interval', 'maxInterval'],
  inputProblems: (step, path) => [
    ...readInputProblems(step.wait as ActionName, 'wait', step.with, path),
    ...intervalOrder(step.interval, step.maxInterval, path),
  ],
  problems: (step, path) =>
    step.until === undefined && step.untilDeleted !== true
      ? [
          {
            // Without a condition a wait would end at the first answer, which is rarely what was meant.
            rule: 'wait-condition',
            path: [...path, 'wait'],
            message:
              'a wait needs `until` or `untilDeleted: true`; without one it would end at the first answer',
            hint: "e.g. until: \"${{ result.status == 'READY' }}\", or until: 'true' to take any answer",
          },
        ]
      : [],
  output: { answerOf: (step) => step.wait as ActionName },
};
