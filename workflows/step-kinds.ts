// What each step kind does. Calls, waits and watches are activities; sleeps, approvals, assertions and
// loops are workflow code; child runbooks are child workflows.
import {
  ActivityCancellationType,
  CancellationScope,
  condition,
  executeChild,
  isCancellation,
  proxyActivities,
  sleep,
  workflowInfo,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { TidelineActivities } from '../activities';
import type { ActionActivityInput } from '../activities/action-activities';
import type { StepDefinition } from '../dsl/definition';
import type { StepKind } from '../dsl/schema';
import type { DefinitionOf } from '../dsl/step-kinds/facets';
import type { JsonValue } from '../dsl/expressions';
import { evaluateCondition, evaluateExpression } from '../dsl/expressions';
import { expressionNeeds, narrowVariables } from '../dsl/expression-scope';
import { resolveCount, resolveDurationMs, resolveTemplateString, resolveTemplates } from '../dsl/templates';
import { ACTIVITY_POLICIES, LOCAL_CALL_CLASSES, stepRetry, waitActivityOptions } from './activity-policies';
import { runLocalCall } from './local-calls';
import { sideBySide } from './concurrent-calls';
import { sendSiblingCancellations } from './sibling-cancellation';
import { FOREACH_BATCH_SIZE, runForeachInBatches } from './foreach-batch';
import { runIterations } from './foreach-lanes';
import { isBudgeted } from './foreach-budget';
import { runBudgetedForeach } from './foreach-budget-lanes';
import { locksHeldFor } from './foreach-locks';
import type { Interpreter, Scope } from './interpreter';
import { celVariables } from './interpreter';
import type { ApprovalOutcome, RunReport } from '../contract/run-messages';
import { PATCHES } from '../contract/patches';
import { hasPatch } from './release-gate';
import { RunState } from './run-state';
import { StepFailed } from './step-failure';
import { RUNBOOK_WORKFLOW_TYPE } from '../contract/workflow-types';
import { WAIT_ACTIVITY } from '../contract/wait-activity';

type CallStep = Extract<StepDefinition, { kind: 'call' }>;

function callOptions(step: CallStep): ActivityOptions {
  const policy = ACTIVITY_POLICIES[step.actionKind];
  const options: ActivityOptions = { ...policy };
  // A change in flight when the run is cancelled lands before compensation starts (no retry
  // follows): otherwise it could land after the compensation and undo its work.
  if (step.actionKind !== 'read' && hasPatch(PATCHES.changesSettleBeforeCancel)) {
    options.cancellationType = ActivityCancellationType.WAIT_CANCELLATION_COMPLETED;
  }
  if (step.retry) options.retry = stepRetry(step, policy.retry);
  return options;
}

/**
 * How a step's activity is named in the history: its step key as activity id (unique in the run)
 * and its name as summary, so Temporal's UI and CLI show which step an activity belongs to.
 */
function stepIdentity(step: StepDefinition, key: string): { activityId?: string; summary?: string } {
  if (!hasPatch(PATCHES.stepActivityIds)) return {};
  return { activityId: key, summary: step.name ?? key };
}

function asInput(value: JsonValue, key: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new StepFailed(key, 'STEP_INPUT_INVALID', '`with` must resolve to a map of fields');
  }
  return value;
}

/**
 * A step's `with`, resolved; fields an operator changed on a retry of a held step (`retry --with`)
 * replace what the templates give. Runs that never hold get exactly the resolved `with`.
 */
function stepInput(
  templates: Record<string, JsonValue>,
  vars: Record<string, unknown>,
  key: string,
  interpreter: Interpreter,
): Record<string, unknown> {
  const input = asInput(resolveTemplates(templates, vars), key);
  const changed = interpreter.state.holds?.withChanges(key);
  return changed === undefined ? input : { ...input, ...changed };
}

/** What a call's activity (local or not) is given. */
function callArgs(
  step: CallStep,
  key: string,
  vars: Record<string, unknown>,
  interpreter: Interpreter,
): ActionActivityInput {
  const input = stepInput(step.with, vars, key, interpreter);
  // Retried by an operator after a hold: what failed may have taken effect (adopt, or check).
  const retried = interpreter.state.holds?.wasRetried(key) === true;
  return { input, adoptExisting: step.adopt, ...(retried && { retried }) };
}

/** How a step of kind K runs in the workflow and what it gives as its output. */
type KindRun<K extends StepKind> = (
  step: DefinitionOf<K>,
  scope: Scope,
  key: string,
  interpreter: Interpreter,
) => Promise<JsonValue>;

/**
 * The sandbox table: how each step kind runs, by kind. Workflow code (the workflow API, no I/O);
 * the kind's other facets are in dsl/step-kinds/ and cli/plan/step-kind-views.ts.
 */
export const STEP_KIND_RUNNERS = {
  call: async (step, scope, key, interpreter) => {
    const vars = celVariables(scope);
    const besideOthers = interpreter.concurrentLanes > 0 && interpreter.concurrentCallsAsTasks;
    if (LOCAL_CALL_CLASSES.has(step.actionKind) && !besideOthers && hasPatch(PATCHES.localCalls)) {
      return runLocalCall(step, key, vars, interpreter, () => callArgs(step, key, vars, interpreter));
    }
    const options = { ...callOptions(step), ...stepIdentity(step, key) };
    if (step.timeoutMs !== undefined)
      options.scheduleToCloseTimeout = resolveDurationMs(step.timeoutMs, vars);
    const activity = proxyActivities<TidelineActivities>(options)[step.action];
    return (await activity(callArgs(step, key, vars, interpreter))) as JsonValue;
  },
  wait: async (step, scope, key, interpreter) => {
    const vars = celVariables(scope);
    const timeoutMs = resolveDurationMs(step.timeoutMs, vars);
    const startedAt = Date.now();
    const record = interpreter.state.get(key);
    if (record) record.waitingFor = RunState.waitingFor(step);
    const activity = proxyActivities<TidelineActivities>({
      ...waitActivityOptions(timeoutMs),
      ...stepIdentity(step, key),
    })[WAIT_ACTIVITY];
    const waited = await activity({
      action: step.action,
      input: stepInput(step.with, vars, key, interpreter),
      ...(step.until !== undefined ? { until: step.until } : {}),
      ...(step.failIf !== undefined ? { failIf: step.failIf } : {}),
      // Only what the conditions read: the input is stored in the history, once per wait.
      vars: narrowVariables(vars, expressionNeeds([step.until, step.failIf])),
      untilDeleted: step.untilDeleted,
      startedAt,
      deadline: startedAt + timeoutMs,
      intervalMs: step.intervalMs,
      maxIntervalMs: step.maxIntervalMs,
    });
    return waited.result as JsonValue;
  },
  watch: async (step, scope, key, interpreter) => {
    const vars = celVariables(scope);
    const startedAt = Date.now();
    const activity = proxyActivities<TidelineActivities>({
      ...waitActivityOptions(step.forMs),
      ...stepIdentity(step, key),
    })[WAIT_ACTIVITY];
    const watched = await activity({
      action: step.action,
      input: stepInput(step.with, vars, key, interpreter),
      failIf: step.failIf,
      vars: narrowVariables(vars, expressionNeeds([step.failIf])),
      startedAt,
      deadline: startedAt + step.forMs,
      intervalMs: step.everyMs,
      maxIntervalMs: step.everyMs,
      watch: true,
    });
    return watched.result as JsonValue;
  },
  sleep: async (step, scope) => {
    await sleep(resolveDurationMs(step.durationMs, celVariables(scope)));
    return null;
  },
  approve: async (step, scope, key, interpreter) => runApproval(step, scope, key, interpreter),
  assert: async (step, scope, key) => {
    const vars = celVariables(scope);
    if (!evaluateCondition(step.condition, vars)) {
      const message =
        step.message !== undefined
          ? String(resolveTemplateString(step.message, vars))
          : `\`${step.condition}\` is false`;
      throw new StepFailed(key, 'ASSERTION_FAILED', message);
    }
    return true;
  },
  fail: async (step, scope, key) => {
    throw new StepFailed(
      key,
      'RUNBOOK_FAILED_STEP',
      String(resolveTemplateString(step.message, celVariables(scope))),
    );
  },
  parallel: async (step, scope, key, interpreter) => {
    await sideBySide(interpreter, step.branches.length, () => runBranches(step, scope, key, interpreter));
    return Object.fromEntries(
      step.branches.map((b) => [
        b.id,
        Object.fromEntries(b.steps.map((s) => [s.id, scope.steps[s.id]?.output ?? null])),
      ]),
    );
  },
  foreach: async (step, scope, key, interpreter) => runForeach(step, scope, key, interpreter),
  runbook: async (step, scope, key, interpreter) => {
    const vars = celVariables(scope);
    const inputs = stepInput(step.with, vars, key, interpreter);
    const { summary } = stepIdentity(step, key);
    const report = await executeChild<(input: unknown) => Promise<RunReport>>(RUNBOOK_WORKFLOW_TYPE, {
      args: [
        {
          definition: step.runbook,
          inputs,
          heldLocks: [...interpreter.heldLocks(), ...locksHeldFor(scope)],
          ...(interpreter.state.governance !== undefined && {
            admission: interpreter.state.governance.forChildren(),
          }),
        },
      ],
      workflowId: `${workflowInfo().workflowId}/${key}`,
      ...(summary !== undefined ? { staticSummary: summary } : {}),
      ...(step.timeoutMs !== undefined
        ? { workflowExecutionTimeout: resolveDurationMs(step.timeoutMs, vars) }
        : {}),
    });
    return report.outputs;
  },
} satisfies { [K in StepKind]: KindRun<K> };

/**
 * Runs a step by its kind's runner. Each runner is an async function whose body is what the step
 * does, so its promise settles after the same turns as ever (concurrent lanes keep their order).
 */
export function runStepKind(
  step: StepDefinition,
  scope: Scope,
  key: string,
  interpreter: Interpreter,
): Promise<JsonValue> {
  const run = STEP_KIND_RUNNERS[step.kind] as KindRun<StepKind>;
  return run(step, scope, key, interpreter);
}

/**
 * Runs a parallel step's branches. The first branch that fails cancels the others (which stop at
 * their next cancellable point and leave their completed steps to compensation); its failure is
 * the step's. Runs recorded before the fail-fast release wait for every branch instead.
 */
async function runBranches(
  step: Extract<StepDefinition, { kind: 'parallel' }>,
  scope: Scope,
  key: string,
  interpreter: Interpreter,
): Promise<void> {
  const run = (branch: (typeof step.branches)[number]) =>
    interpreter.runSteps(branch.steps, scope, `${key}.${branch.id}.`);
  if (!hasPatch(PATCHES.parallelFailFast)) {
    const settled = await Promise.allSettled(step.branches.map(run));
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
    return;
  }
  const scopes = step.branches.map(() => new CancellationScope());
  let firstFailure: { error: unknown } | undefined;
  const settled = await Promise.allSettled(
    step.branches.map((branch, index) =>
      scopes[index]!.run(() => run(branch)).catch((error: unknown) => {
        if (firstFailure === undefined && !isCancellation(error)) {
          firstFailure = { error };
          scopes.forEach((sibling, other) => other !== index && sibling.cancel());
        }
        throw error;
      }),
    ),
  );
  if (firstFailure !== undefined) {
    if (interpreter.siblingCancelSettles && step.branches.length > 1) await sendSiblingCancellations();
    throw firstFailure.error;
  }
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
}

async function runApproval(
  step: Extract<StepDefinition, { kind: 'approve' }>,
  scope: Scope,
  key: string,
  interpreter: Interpreter,
): Promise<JsonValue> {
  const vars = celVariables(scope);
  const timeoutMs = step.timeoutMs === undefined ? undefined : resolveDurationMs(step.timeoutMs, vars);
  const governance = interpreter.state.governance;
  if (governance !== undefined && step.approvers !== undefined && step.allowSelfApproval === false) {
    const { starter } = governance.admission;
    if (!starter.verified) {
      throw new StepFailed(
        key,
        'APPROVAL_START_UNVERIFIED',
        `this step refuses self-approval, so it needs a run whose starter is known: the start ${starter.by === null ? 'named no starter' : `only claims "${starter.by}"`} (${starter.reason ?? 'not verified'}); start the run with an approval key registered on the worker (tideline keys create NAME; tideline run … --by NAME)`,
      );
    }
  }
  const plan =
    governance !== undefined && step.approvers !== undefined ? governance.planFor(step, scope) : undefined;
  const waiter = interpreter.state.openApproval({
    stepKey: key,
    message: String(resolveTemplateString(step.message, vars)),
    deadline: timeoutMs === undefined ? 0 : Date.now() + timeoutMs,
    default: step.default,
    ...(step.approvers !== undefined && {
      approvers: step.approvers,
      minApprovals: step.minApprovals ?? 1,
      allowSelfApproval: step.allowSelfApproval ?? true,
      approvedBy: [],
    }),
    ...(plan !== undefined && { plan }),
  });
  try {
    const decided =
      timeoutMs === undefined
        ? (await condition(() => waiter.decision !== undefined), true)
        : await condition(() => waiter.decision !== undefined, timeoutMs, {
            // What the Web UI's timeline names the timer (metadata: replay does not compare it).
            summary: `approval ${key}: ${step.default} without an answer`,
          });
    const outcome: ApprovalOutcome =
      decided && waiter.decision
        ? waiter.decision
        : { approved: step.default === 'approve', by: null, comment: null, timedOut: true };
    if (!outcome.approved) {
      const why = outcome.timedOut
        ? 'no answer before the timeout (default: reject)'
        : `rejected${outcome.by ? ` by ${outcome.by}` : ''}`;
      throw new StepFailed(
        key,
        'APPROVAL_REJECTED',
        `${why}${outcome.comment ? `: ${outcome.comment}` : ''}`,
      );
    }
    if (plan !== undefined) governance?.noteApproved(step, key, scope, plan);
    return { ...outcome };
  } finally {
    interpreter.state.closeApproval(key);
  }
}

async function runForeach(
  step: Extract<StepDefinition, { kind: 'foreach' }>,
  scope: Scope,
  key: string,
  interpreter: Interpreter,
): Promise<JsonValue> {
  const vars = celVariables(scope);
  const items = evaluateExpression(step.items, vars);
  if (!Array.isArray(items))
    throw new StepFailed(key, 'STEP_INPUT_INVALID', `\`${step.items}\` must give a list`);
  const limit = Math.max(1, resolveCount(step.concurrency, vars));
  // Fleet-sized loops run in child workflows, batch by batch (foreach-batch.ts).
  if (items.length > FOREACH_BATCH_SIZE && hasPatch(PATCHES.foreachBatches)) {
    return runForeachInBatches(step, items, limit, scope, key, interpreter);
  }
  // Only definitions with `maxErrors` or `ramp` (never a run started on an earlier release).
  if (isBudgeted(step)) return runBudgetedForeach(step, items, limit, scope, key, interpreter);
  const outcome = await runIterations({ step, items, offset: 0, limit, scope, key, interpreter });
  if (outcome.firstError !== undefined) throw outcome.firstError;
  return outcome.results;
}
