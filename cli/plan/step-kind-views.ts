// The table for the rest: how each step kind shows in `tideline plan` — what its plan holds (the
// request it would send, its conditions, …), its line in the plan text, and its node in the
// Mermaid diagram. The language facets of each kind are in dsl/step-kinds/, how it runs in
// workflows/step-kinds.ts; this table is a mapped `Record` over `StepKind` as they are, so a kind
// without its views does not compile.
import type { ActionName, OperationKind } from '../../cloud/operations';
import type { StepDefinition } from '../../dsl/definition';
import { formatDuration } from '../../dsl/durations';
import type { JsonValue } from '../../dsl/expressions';
import type { StepKind } from '../../dsl/schema';
import type { DefinitionOf } from '../../dsl/step-kinds/facets';
import type { PartialResolver } from './partial-resolver';
import { planTargets } from './plan-targets';
import type { PlanRequest, PlanStep } from './plan-types';
import { selectorText } from '../output/plan-targets-text';
import { inlineValue } from '../output/style';

/** What a kind's plan facet may use. */
export interface PlanContext {
  key: string;
  resolver: PartialResolver;
  /** The request an action would send for an input. */
  request(action: ActionName, input: Record<string, JsonValue>): PlanRequest;
  /** Keeps a call's action kind and resolved `with` beside the plan (the policies read them). */
  noteCall(planned: PlanStep, actionKind: OperationKind, resolved: Record<string, JsonValue>): void;
  /** The plans of a child runbook's steps, under a key prefix, resolved with nothing. */
  childSteps(steps: readonly StepDefinition[], prefix: string): PlanStep[];
}

/** The Mermaid node shapes a step may have. */
export type DiagramShape = 'box' | 'stadium' | 'hexagon' | 'subroutine';

export interface StepKindViews<K extends StepKind> {
  /** Fills in the kind's own fields of its plan (the common ones are set). */
  plan(step: DefinitionOf<K>, planned: PlanStep, context: PlanContext): void;
  /** Its headline in the plan text. */
  headline(step: PlanStep): string;
  /** Facts shown right after `only if …`, and after the common ones (timeout, retry, …). */
  leadingFacts(step: PlanStep): string[];
  trailingFacts(step: PlanStep): string[];
  /** Its headline already says its timeout (an approval's default applies then). */
  timeoutInHeadline: boolean;
  /** What the plan text calls its nested `steps` (a foreach body, a child runbook's steps). */
  stepsTitle: string;
  /** The second line of its diagram node, and the node's shape. */
  diagramLabel(step: PlanStep, short: (text: string, max: number) => string): string;
  diagramShape: DiagramShape;
  /** `tideline status` of it while it runs: a poller's last answer and polls, the run it started. */
  whileRunning: 'polls' | 'batch run' | 'child run' | 'nothing';
}

/** CEL written over several YAML lines reads better on one. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

const PLAIN = {
  leadingFacts: () => [],
  trailingFacts: () => [],
  timeoutInHeadline: false,
  stepsTitle: 'for each item',
  diagramShape: 'box',
} as const;

/** `3 at a time, ramp 1×2, stop starting after 2 failed items, finish those in flight`. */
function foreachLimits(step: PlanStep): string {
  const parts = [`${inlineValue(step.concurrency ?? 1)} at a time`];
  if (step.waves !== undefined) parts.push(`in waves of ${step.waves}, each after the one before has ended`);
  if (step.ramp !== undefined)
    parts.push(`ramp from ${step.ramp.start}, ×${step.ramp.factor} while items succeed`);
  if (step.maxErrors !== undefined) {
    const budget =
      typeof step.maxErrors === 'number' ? `${step.maxErrors}` : `${step.maxErrors} of the items`;
    parts.push(
      `maxErrors ${budget}: more failed items stop new starts and ${step.onMaxErrors === 'cancel' ? 'cancel' : 'finish'} those in flight`,
    );
  }
  return parts.join(', ');
}

export const STEP_KIND_VIEWS = {
  call: {
    ...PLAIN,
    whileRunning: 'nothing',
    plan: (step, planned, { resolver, request, noteCall }) => {
      const resolved = resolver.value(step.with) as Record<string, JsonValue>;
      planned.request = request(step.action, resolved);
      noteCall(planned, step.actionKind, resolved);
      if (step.adopt) planned.adopt = true;
    },
    headline: (step) =>
      `call ${step.request?.action ?? ''}${step.adopt ? ' (adopts an existing resource of the same name)' : ''}`,
    diagramLabel: (step) => `call ${step.request?.action ?? ''}`,
  },
  wait: {
    ...PLAIN,
    whileRunning: 'polls',
    plan: (step, planned, { resolver, request }) => {
      planned.request = request(step.action, resolver.value(step.with) as Record<string, JsonValue>);
      if (step.until !== undefined) planned.until = step.until;
      if (step.failIf !== undefined) planned.failIf = step.failIf;
      if (step.untilDeleted) planned.untilDeleted = true;
      planned.interval = `${formatDuration(step.intervalMs)}…${formatDuration(step.maxIntervalMs)}`;
    },
    headline: (step) =>
      `wait ${step.request?.action ?? ''} ${step.untilDeleted ? 'until the resource is gone' : `until ${oneLine(step.until ?? 'it answers')}`}`,
    leadingFacts: (step) => [
      ...(step.failIf !== undefined ? [`fails if ${oneLine(step.failIf)}`] : []),
      `polls every ${step.interval ?? ''}`,
    ],
    diagramLabel: (step, short) =>
      `wait ${step.request?.action ?? ''}${step.untilDeleted ? ' until gone' : step.until ? ` until ${short(step.until, 40)}` : ''}`,
    diagramShape: 'stadium',
  },
  sleep: {
    ...PLAIN,
    whileRunning: 'nothing',
    plan: (step, planned, { resolver }) => {
      planned.duration = resolver.duration(step.durationMs) ?? '';
    },
    headline: (step) => `sleep ${step.duration ?? ''}`,
    diagramLabel: (step) => `sleep ${step.duration ?? ''}`,
  },
  approve: {
    ...PLAIN,
    whileRunning: 'nothing',
    plan: (step, planned, { resolver }) => {
      planned.message = resolver.value(step.message);
      planned.default = step.default;
    },
    headline: (step) =>
      `approve: ${inlineValue(step.message ?? '')} (default ${step.default ?? 'reject'}${step.timeout ? ` after ${step.timeout}` : ', no timeout'})`,
    timeoutInHeadline: true,
    diagramLabel: () => 'approval',
    diagramShape: 'hexagon',
  },
  assert: {
    ...PLAIN,
    whileRunning: 'nothing',
    plan: (step, planned, { resolver }) => {
      planned.condition = step.condition;
      if (step.message !== undefined) planned.message = resolver.value(step.message);
    },
    headline: (step) => `assert ${oneLine(step.condition ?? '')}`,
    trailingFacts: (step) => (step.message !== undefined ? [`message ${inlineValue(step.message)}`] : []),
    diagramLabel: (step, short) => `assert ${short(step.condition ?? '', 40)}`,
  },
  parallel: {
    ...PLAIN,
    whileRunning: 'nothing',
    plan: (step, planned) => {
      planned.branches = step.branches.map((branch) => ({
        id: branch.id,
        ...(branch.name !== undefined ? { name: branch.name } : {}),
        steps: [],
      }));
    },
    headline: (step) => `parallel: ${step.branches?.length ?? 0} branches at once`,
    diagramLabel: () => 'parallel',
  },
  foreach: {
    ...PLAIN,
    whileRunning: 'batch run',
    plan: (step, planned, { resolver }) => {
      planned.items = step.items;
      planned.as = step.as;
      planned.concurrency = resolver.value(step.concurrency);
      if (step.maxErrors !== undefined) planned.maxErrors = step.maxErrors;
      if (step.onMaxErrors !== undefined) planned.onMaxErrors = step.onMaxErrors;
      if (step.ramp !== undefined) planned.ramp = { ...step.ramp };
      if (step.waves !== undefined) planned.waves = step.waves;
      if (step.targets !== undefined) planned.targets = planTargets(step.targets, resolver);
      planned.steps = [];
    },
    headline: (step) =>
      step.targets !== undefined
        ? `foreach ${step.as ?? 'item'} in ${selectorText(step.targets)} (${foreachLimits(step)})`
        : `foreach ${step.as ?? 'item'} in ${step.items ?? ''} (${foreachLimits(step)})`,
    diagramLabel: (step, short) =>
      `foreach ${step.as ?? 'item'} in ${short(step.targets !== undefined ? 'targets' : (step.items ?? ''), 32)}`,
  },
  runbook: {
    ...PLAIN,
    whileRunning: 'child run',
    plan: (step, planned, { key, resolver, childSteps }) => {
      planned.runbook = {
        path: step.path,
        name: step.runbook.name,
        with: resolver.value(step.with) as Record<string, JsonValue>,
      };
      // The child's own inputs are only known at run time: show its steps unresolved.
      planned.steps = childSteps(step.runbook.steps, `${key}/`);
    },
    headline: (step) =>
      `runbook ${step.runbook?.path ?? ''} (${step.runbook?.name ?? ''}) with ${JSON.stringify(step.runbook?.with ?? {})}`,
    stepsTitle: 'its steps',
    diagramLabel: (step) => `runbook ${step.runbook?.path ?? ''}`,
    diagramShape: 'subroutine',
  },
  fail: {
    ...PLAIN,
    whileRunning: 'nothing',
    plan: (step, planned, { resolver }) => {
      planned.message = resolver.value(step.message);
    },
    headline: (step) => `fail: ${inlineValue(step.message ?? '')}`,
    diagramLabel: () => 'fail',
  },
  watch: {
    ...PLAIN,
    whileRunning: 'polls',
    plan: (step, planned, { resolver, request }) => {
      planned.request = request(step.action, resolver.value(step.with) as Record<string, JsonValue>);
      planned.failIf = step.failIf;
      planned.duration = formatDuration(step.forMs);
      planned.interval = formatDuration(step.everyMs);
    },
    headline: (step) =>
      `watch ${step.request?.action ?? ''} for ${step.duration ?? ''}: fails if ${oneLine(step.failIf ?? '')}`,
    leadingFacts: (step) => [`reads every ${step.interval ?? ''}`],
    diagramLabel: (step, short) =>
      `watch ${step.request?.action ?? ''} for ${step.duration ?? ''}, fails if ${short(step.failIf ?? '', 32)}`,
    diagramShape: 'stadium',
  },
} satisfies { [K in StepKind]: StepKindViews<K> };

/** The views of a kind, for a step of any kind. */
export function viewsOf(kind: StepKind): StepKindViews<StepKind> {
  return STEP_KIND_VIEWS[kind] as unknown as StepKindViews<StepKind>;
}
