// The one workflow type that runs any validated runbook. It receives the normalised definition,
// so a run is pinned to the definition it started with, and compensates on failure or cancel.
import {
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  log,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import { agentApprovalRefusal, isAgentName } from '../contract/approval-messages';
import { DEFAULT_HOLD_TIMEOUT_MS, DEFINITION_FORMAT_VERSION } from '../dsl/definition';
import type { JsonValue } from '../dsl/expressions';
import { bindInputs } from '../dsl/inputs';
import { resolveTemplates } from '../dsl/templates';
import { Holds } from './holds';
import { ApprovalLedger, asQuorum } from './approval-ledger';
import { setHoldHandlers } from './hold-handlers';
import { Interpreter, celVariables, type Scope } from './interpreter';
import {
  RUNBOOK_FAILED,
  approvalUpdate,
  progressQuery,
  type RunReport,
  type RunbookWorkflowInput,
} from '../contract/run-messages';
import { PATCHES } from '../contract/patches';
import { hasPatch, startRelease } from './release-gate';
import { RunState } from './run-state';
import { RunVisibility } from './run-visibility';
import { RunLocks, lockKeys, locksStartHeldAtStart } from './locks';
import { runIdentity } from './run-identity';
import { RunGovernance } from './run-governance';
import { RUN_CANCELLED, StepFailed, runCancelled, summariseFailure } from './step-failure';
import { runStepKind } from './step-kinds';
import { concurrentCallsAsTasks } from './concurrent-calls';
import { siblingCancelSettlesAtStart } from './sibling-cancellation';
import { localCallAttemptsAtStart } from './local-calls';
import { noteRunbookOnRunSpan } from './step-tracing';
import { RunNotifier } from './run-notifier';

export async function runbookWorkflow(input: RunbookWorkflowInput): Promise<RunReport> {
  // First, before any other patch or command (workflows/release-gate.ts).
  startRelease();
  const { definition } = input;
  const format = definition.formatVersion ?? 1;
  if (!Number.isInteger(format) || format < 1 || format > DEFINITION_FORMAT_VERSION) {
    throw ApplicationFailure.create({
      type: 'RUNBOOK_FORMAT_UNSUPPORTED',
      message:
        typeof format === 'number' && format > DEFINITION_FORMAT_VERSION
          ? `the definition has format version ${format}; this worker reads up to ${DEFINITION_FORMAT_VERSION}: upgrade the workers before the CLI (or the schedules) that start these runs`
          : `the definition has format version ${JSON.stringify(format)}, which no release of tideline wrote; this worker reads 1 to ${DEFINITION_FORMAT_VERSION}`,
      nonRetryable: true,
    });
  }
  const state = new RunState(definition.name, Date.now());
  noteRunbookOnRunSpan(definition.name);
  setHandler(progressQuery, () => state.progress());
  // Commands only for steps with approvers (format 2), which runs of earlier releases cannot have.
  const { workflowId, runId } = workflowInfo();
  state.ledger = new ApprovalLedger(
    { workflowId, runId },
    input.startedBy,
    () => state.onChange(),
    () => state.governance,
  );
  const ledger = state.ledger;
  setHandler(
    approvalUpdate,
    (decision) => {
      const waiter = state.approvalFor(decision);
      const quorum = asQuorum(waiter);
      if (quorum !== undefined) return ledger.decide(quorum, decision);
      waiter.decision = {
        approved: decision.approved,
        by: decision.by ?? null,
        comment: decision.comment ?? null,
        timedOut: false,
      };
      return waiter.decision;
    },
    {
      // An agent's decision on a step without approvers is refused here, before it is accepted
      // (steps with approvers refuse it in approval.verify, which the run's audit records). A
      // validator runs only when an update arrives, never on replay, and a rejected update leaves
      // no event: histories replay as before.
      validator: (decision) => {
        const waiter = state.approvalFor(decision);
        if (asQuorum(waiter) === undefined && isAgentName(decision.by))
          throw new Error(agentApprovalRefusal(decision.by ?? ''));
      },
    },
  );
  // Before any other command: runs of earlier releases replay without search attribute upserts.
  const visibility = new RunVisibility(hasPatch(PATCHES.runVisibility));
  // Also before any call (workflows/concurrent-calls.ts, workflows/local-calls.ts).
  const callsAsTasks = concurrentCallsAsTasks(definition.steps);
  const callAttempts = localCallAttemptsAtStart(definition.steps);
  locksStartHeldAtStart(definition.steps);
  const cancelSettles = siblingCancelSettlesAtStart(definition.steps);

  const bound = bindInputs(definition.inputs, input.inputs);
  if (!bound.ok) {
    const problems = bound.problems.map((p) => p.message).join('; ');
    throw ApplicationFailure.create({ type: 'RUNBOOK_INPUT_INVALID', message: problems, nonRetryable: true });
  }

  const scope: Scope = { inputs: bound.values, steps: {}, vars: {} };
  state.holds = new Holds({
    ...(input.onFailure !== undefined && { override: input.onFailure }),
    ...(definition.onFailure !== undefined && { runbook: definition.onFailure }),
    timeoutMs: definition.holdTimeoutMs ?? DEFAULT_HOLD_TIMEOUT_MS,
  });
  setHoldHandlers(state.holds, definition, input.inputs, scope, () => state.governance);
  const identity = runIdentity(definition, bound.values);
  state.secretValues = identity.secretValues;
  state.definition = definition;
  // The worker's verdict before any step: catalogue, verified starter, policies.
  const admitted = await RunGovernance.admit(input, bound.values);
  const admission = admitted?.admission;
  if (admission !== undefined) {
    state.governance = new RunGovernance(
      definition.name,
      admission,
      definition,
      new Set(Object.keys(definition.inputs).filter((name) => definition.inputs[name]?.secret === true)),
      (key) => state.holds?.withChanges(key),
    );
    state.governance.onChange = () => state.onChange();
    state.governance.signedForAnotherRun = (key) => ledger.signedForAnotherRun(key);
  }
  let notifier = RunNotifier.silent();
  state.onChange = () => {
    visibility.sync(state);
    notifier.observe(state);
  };
  state.holds.onChange = state.onChange;
  state.onResources = (resources) => {
    for (const resource of resources) if (resource.type === 'service') visibility.addService(resource.id);
    visibility.syncSoon(state);
  };
  visibility.start(state, identity.project, identity.services);
  notifier = await RunNotifier.start(definition, state, admitted?.notifications);
  const heldByParent = input.heldLocks ?? [];
  const locks = new RunLocks();
  state.lockStatus = () => ({ waitingFor: locks.waitingFor, held: [...heldByParent, ...locks.held] });
  const interpreter = new Interpreter(state, runStepKind, () => [...heldByParent, ...locks.held]);
  interpreter.concurrentCallsAsTasks = callsAsTasks;
  interpreter.localCallAttempts = callAttempts;
  interpreter.siblingCancelSettles = cancelSettles;
  interpreter.plan(definition.steps, '');
  const secretOutputs = Object.entries(definition.outputs)
    .filter(([, output]) => output.secret)
    .map(([name]) => name);

  try {
    if (admission !== undefined && !admission.allowed) {
      throw new StepFailed(
        '',
        admission.code ?? 'RUNBOOK_NOT_ALLOWED',
        admission.reason ?? 'refused by the worker',
      );
    }
    // A start rule's approvals, before the wait and the service locks (runs the worker admitted).
    const overridden =
      workflowInfo().parent === undefined &&
      state.governance !== undefined &&
      (await state.governance.beforeFirstStep((approval, key, at = scope) =>
        runStepKind(approval, at, key, interpreter).then(() => undefined),
      ));
    if (admission?.waitMs !== undefined && admission.allowed && !overridden) {
      // A change window closed at the start whose rule waits: the run starts its steps when it opens.
      await sleep(Math.max(1, admission.waitMs), {
        summary: 'change window closed at the start: the run waits until it opens',
      });
    }
    await locks.acquire(lockKeys(definition, bound.values).filter((key) => !heldByParent.includes(key)));
    await interpreter.runSteps(definition.steps, scope, '');
  } catch (error) {
    // A step may fail on its own while a cancellation is pending; the run still ends cancelled.
    const cancelled =
      isCancellation(error) ||
      (CancellationScope.current().consideredCancelled && hasPatch(PATCHES.cancellationKept));
    const failure = summariseFailure(error);
    state.failure = {
      stepKey: error instanceof StepFailed ? error.stepKey : '',
      type: cancelled ? RUN_CANCELLED.type : failure.type,
      message: cancelled ? RUN_CANCELLED.message : failure.message,
    };
    state.status = 'compensating';
    visibility.sync(state);
    // Compensation must run to the end even though the run itself is being cancelled.
    await CancellationScope.nonCancellable(async () => {
      await interpreter.compensate();
      await locks.release();
    });
    state.status = cancelled ? 'cancelled' : 'failed';
    state.endedAt = Date.now();
    visibility.sync(state);
    await notifier.finish(state);
    if (cancelled) throw isCancellation(error) ? error : runCancelled();
    const report: RunReport = { ...state.progress(), outputs: {}, secretOutputs };
    throw ApplicationFailure.create({
      type: RUNBOOK_FAILED,
      message:
        state.failure.stepKey === ''
          ? state.failure.message
          : `step ${state.failure.stepKey} failed: ${state.failure.message}`,
      nonRetryable: true,
      details: [report],
    });
  }

  const outputs: Record<string, JsonValue> = {};
  const vars = celVariables(scope);
  for (const [name, output] of Object.entries(definition.outputs)) {
    try {
      outputs[name] = resolveTemplates(output.value, vars);
    } catch (error) {
      // The work is done; a broken output expression must not undo it.
      log.warn('output could not be resolved', { output: name, error: summariseFailure(error).message });
      outputs[name] = null;
    }
  }
  if (hasPatch(PATCHES.cancellationKept)) {
    // The work is done: a cancellation arriving now must not leave the locks held.
    await CancellationScope.nonCancellable(() => locks.release());
  } else {
    await locks.release();
  }
  state.status = 'succeeded';
  state.endedAt = Date.now();
  visibility.sync(state);
  await notifier.finish(state);
  return { ...state.progress(), outputs, secretOutputs };
}
