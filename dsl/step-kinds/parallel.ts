// `parallel`: run branches at the same time; the step fails if any branch fails.
import { ParallelStep } from '../schema';
import type { StepKindLanguage } from './facets';
import { STEP_KIND_RUNTIME } from './runtime-table';
import { NONE } from './shared';

export const PARALLEL: StepKindLanguage<'parallel'> = {
  ...STEP_KIND_RUNTIME.parallel,
  schema: ParallelStep,
  normalise: (step, { base, nested }) => ({
    kind: 'parallel',
    ...base,
    branches: step.parallel.map((branch) => ({
      id: branch.id,
      ...(branch.name !== undefined && { name: branch.name }),
      steps: nested(branch.steps),
    })),
  }),
  checkExpressions: () => 'dyn',
  ...NONE,
  namesActions: undefined,
  durations: [],
  output: { cel: 'map<string, map<string, dyn>>' },
};
