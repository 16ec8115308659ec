// `watch`: a bake period. Reads an action at an interval for a while and fails as soon as `failIf`
// holds; passes when the while is over. It runs as the wait activity with a watch's ends.
import type { ActionName } from '../../cloud/operations';
import { DEFAULT_WATCH_EVERY_MS } from '../definition';
import { parseDuration } from '../durations';
import type { ProblemPath, RunbookProblem } from '../problems';
import { WatchStep } from '../schema';
import { conditionExpression } from '../templates';
import { readInputProblems } from '../validator-actions';
import type { StepKindLanguage } from './facets';
import { STEP_KIND_RUNTIME } from './runtime-table';
import { NONE, withInput } from './shared';

/** A watch lasts `for`; a `timeout` would only cut it short, and `every` must fit inside `for`. */
function timingProblems(step: WatchStep, path: ProblemPath): RunbookProblem[] {
  const problems: RunbookProblem[] = [];
  if (step.timeout !== undefined) {
    problems.push({
      rule: 'duration',
      path: [...path, 'timeout'],
      message: 'a watch lasts `for` and has no `timeout`',
      hint: 'set how long to watch with `for`',
    });
  }
  if (step.every !== undefined && parseDuration(step.every) > parseDuration(step.for)) {
    problems.push({
      rule: 'duration',
      path: [...path, 'every'],
      message: '`every` is longer than `for`: the watch would read at most once',
    });
  }
  return problems;
}

export const WATCH: StepKindLanguage<'watch'> = {
  ...STEP_KIND_RUNTIME.watch,
  schema: WatchStep,
  normalise: (step, { base }) => ({
    kind: 'watch',
    ...base,
    action: step.watch as ActionName,
    with: withInput(step.with),
    failIf: conditionExpression(step.failIf),
    forMs: parseDuration(step.for),
    everyMs: step.every !== undefined ? parseDuration(step.every) : DEFAULT_WATCH_EVERY_MS,
  }),
  checkExpressions: (step, path, check) => {
    check.templates(step.with ?? {}, [...path, 'with']);
    check.expression(step.failIf, [...path, 'failIf'], 'condition', step.watch as ActionName);
    return 'dyn';
  },
  ...NONE,
  namesActions: 'read',
  durations: ['for', 'every'],
  inputProblems: (step, path) => readInputProblems(step.watch as ActionName, 'watch', step.with, path),
  problems: timingProblems,
  output: { answerOf: (step) => step.watch as ActionName },
};
