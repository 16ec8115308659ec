// The sandbox table: the facts about each step kind the workflow needs — what a step reads (its
// activity inputs carry only that), where it keeps nested steps (the step-tree walk), whether it
// holds, fails on its own terms, calls the API, applies its own timeout, settles before a
// cancellation, has a `with`. Light and sandbox-safe: types and constants only, no schemas and no
// catalogue, so the workflow bundle stays as small as it was. Each language module
// (./call.ts, …) spreads its entry, so the language table has every facet of a kind.
import { DEFAULT_FOREACH_VARIABLE, type StepDefinition } from '../definition';
import type { Step, StepKind } from '../schema';
import type { StepKindRuntime, StepKindRuntimeTable } from './facets';

const LEAF = { nested: {} } as const;

export const STEP_KIND_RUNTIME = {
  call: {
    kind: 'call',
    ...LEAF,
    reads: (step) => [{ template: step.with }],
    canHold: true,
    canFail: true,
    callsApi: true,
    actionOf: (step) => step.action,
    ownTimeout: true,
    settlesBeforeCancel: true,
    withOf: (step) => step.with,
  },
  wait: {
    kind: 'wait',
    ...LEAF,
    reads: (step) => [{ template: step.with }, { expression: step.until }, { expression: step.failIf }],
    canHold: true,
    canFail: true,
    callsApi: true,
    actionOf: (step) => step.action,
    ownTimeout: true,
    settlesBeforeCancel: false,
    withOf: (step) => step.with,
  },
  sleep: {
    kind: 'sleep',
    ...LEAF,
    reads: (step) => [{ template: step.durationMs }],
    canHold: true,
    canFail: false,
    callsApi: false,
    actionOf: () => undefined,
    ownTimeout: false,
    settlesBeforeCancel: false,
    withOf: () => undefined,
  },
  approve: {
    kind: 'approve',
    ...LEAF,
    reads: (step) => [{ template: step.message }],
    // A rejection is a decision: it rolls back.
    canHold: false,
    canFail: true,
    callsApi: false,
    actionOf: () => undefined,
    ownTimeout: true,
    settlesBeforeCancel: false,
    withOf: () => undefined,
  },
  assert: {
    kind: 'assert',
    ...LEAF,
    reads: (step) => [{ expression: step.condition }, { template: step.message }],
    canHold: true,
    canFail: true,
    callsApi: false,
    actionOf: () => undefined,
    ownTimeout: false,
    settlesBeforeCancel: false,
    withOf: () => undefined,
  },
  parallel: {
    kind: 'parallel',
    nested: {
      branches: {
        written: (step) => step.parallel,
        normalised: (step) => step.branches,
        writtenField: 'parallel',
        normalisedField: 'branches',
      },
    },
    reads: () => [],
    // Containers pass their steps' failures on.
    canHold: false,
    canFail: false,
    callsApi: false,
    actionOf: () => undefined,
    ownTimeout: false,
    settlesBeforeCancel: false,
    withOf: () => undefined,
  },
  foreach: {
    kind: 'foreach',
    nested: {
      body: {
        written: (step) => ({ variable: step.as ?? DEFAULT_FOREACH_VARIABLE, steps: step.steps }),
        normalised: (step) => ({ variable: step.as, steps: step.steps }),
      },
    },
    reads: (step) => [{ expression: step.items }, { template: step.concurrency }],
    canHold: false,
    canFail: false,
    callsApi: false,
    actionOf: () => undefined,
    ownTimeout: false,
    settlesBeforeCancel: false,
    withOf: () => undefined,
  },
  runbook: {
    kind: 'runbook',
    ...LEAF,
    // The child's own expressions read the child's scope, not ours: only its inputs count.
    reads: (step) => [{ template: step.with }],
    canHold: true,
    canFail: true,
    callsApi: false,
    actionOf: () => undefined,
    ownTimeout: true,
    settlesBeforeCancel: false,
    withOf: (step) => step.with,
  },
  fail: {
    kind: 'fail',
    ...LEAF,
    reads: (step) => [{ template: step.message }],
    canHold: true,
    canFail: true,
    callsApi: false,
    actionOf: () => undefined,
    ownTimeout: false,
    settlesBeforeCancel: false,
    withOf: () => undefined,
  },
  watch: {
    kind: 'watch',
    ...LEAF,
    reads: (step) => [{ template: step.with }, { expression: step.failIf }],
    canHold: true,
    canFail: true,
    callsApi: true,
    actionOf: (step) => step.action,
    // It lasts `for` (its deadline), and has no `timeout` of its own.
    ownTimeout: true,
    settlesBeforeCancel: false,
    withOf: (step) => step.with,
  },
} as const satisfies StepKindRuntimeTable;

/** The kinds whose steps call the Cloud API (their activity is the step's; records name kinds as text). */
export const API_STEP_KINDS: ReadonlySet<string> = new Set(
  Object.values(STEP_KIND_RUNTIME)
    .filter((runtime) => runtime.callsApi)
    .map((runtime) => runtime.kind),
);

/** The runtime facts of a kind, for a step of any kind. */
export function runtimeOf(kind: StepDefinition['kind']): StepKindRuntime<StepDefinition['kind']> {
  return STEP_KIND_RUNTIME[kind] as unknown as StepKindRuntime<StepDefinition['kind']>;
}

/** The runtime facts of a normalised step's kind. */
export function definitionRuntime(step: StepDefinition): StepKindRuntime<StepDefinition['kind']> {
  return runtimeOf(step.kind);
}

/** The kind of a written step: its one kind key (the schema accepted it), found once per walk. */
export function writtenKind(step: Step): StepKind {
  const kind = (Object.keys(STEP_KIND_RUNTIME) as StepKind[]).find((key) => key in step);
  if (kind === undefined) throw new Error(`step \`${step.id}\` has no kind`);
  return kind;
}
