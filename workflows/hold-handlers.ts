// The operator's actions on a held run, as workflow updates whose validators refuse a wrong
// action before it is recorded: retry (optionally with changed inputs, bound like at start, or
// changed values of fields the step's `with` sets), skip (with a stand-in output that has every
// field later steps read), rollback.
import { proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { TidelineActivities } from '../activities';
import {
  VERIFY_HOLD_ACTION_ACTIVITY,
  holdActionChanges,
  type HoldActionName,
  type VerifyHoldActionResult,
} from '../contract/approval-messages';
import type { RunbookDefinition, StepDefinition } from '../dsl/definition';
import { bindInputs } from '../dsl/inputs';
import { missingOutputField, outputReads } from '../dsl/output-reads';
import { stepTree } from '../dsl/step-tree';
import { definitionRuntime } from '../dsl/step-kinds/runtime-table';
import type { Holds } from './holds';
import type { Scope } from './interpreter';
import {
  retryUpdate,
  rollbackUpdate,
  skipUpdate,
  type HoldActionBase,
  type OperatorAction,
  type RetryRequest,
  type SkipRequest,
} from '../contract/run-messages';
import type { RunGovernance } from './run-governance';
import type { HoldJudgeRequest } from '../contract/hold-judgement';
import type { JsonValue } from '../dsl/expressions';
import { PATCHES } from '../contract/patches';
import { holdJudgeRequest, type JudgedAction } from './hold-judgement';
import { hasPatch } from './release-gate';

const verifyHoldAction = proxyActivities<TidelineActivities>({
  startToCloseTimeout: '30s',
  retry: { maximumAttempts: 5, initialInterval: '1s' },
})[VERIFY_HOLD_ACTION_ACTIVITY];

/** What an action is judged on, given the run's governance (runs that judge hold actions). */
type JudgeOf<R> = (request: R, admitted: RunGovernance) => HoldJudgeRequest;

/**
 * Runs the worker admitted: the action's signature is checked (`hold.verify`; required in
 * catalogue mode, else an unsigned action is a claim) before it takes effect, and (runs that took
 * holdActionsJudged) the worker's policies now, for the person acting, over what it changes. A
 * refused action is recorded, changes nothing and is answered with its code; an accepted one makes
 * its actor answer for the run's later changes too. Earlier runs: nothing is checked.
 */
function signedAction(holds: Holds, governance: () => RunGovernance | undefined, action: HoldActionName) {
  const nonces = new Set<string>();
  const checked = async <R extends HoldActionBase>(
    admitted: RunGovernance,
    request: R,
    apply: (request: R) => OperatorAction,
    judgeOf: JudgeOf<R>,
  ): Promise<OperatorAction> => {
    const judges = hasPatch(PATCHES.holdActionsJudged);
    const { workflowId, runId } = workflowInfo();
    const nonce = request.signature?.nonce;
    const verdict: VerifyHoldActionResult =
      nonce !== undefined && nonces.has(nonce)
        ? { accepted: false, code: 'HOLD_REPLAYED', reason: 'this signature was already sent to this run' }
        : await verifyHoldAction({
            workflowId,
            runId,
            action,
            ...(request.step !== undefined && { step: request.step }),
            ...(request.by !== undefined && { by: request.by }),
            ...(request.reason !== undefined && { reason: request.reason }),
            changes: holdActionChanges(
              action,
              request as { inputs?: unknown; with?: unknown; output?: unknown },
            ),
            ...(request.signature !== undefined && { signature: request.signature }),
            required: admitted.admission.mode === 'catalog',
            ...(judges && { judge: judgeOf(request, admitted) }),
          });
    if (!verdict.accepted) {
      if (verdict.policies !== undefined) admitted.notePolicies(verdict.policies);
      return holds.refuse(action, request, { code: verdict.code, reason: verdict.reason });
    }
    if (nonce !== undefined) nonces.add(nonce);
    const entry = apply(request);
    entry.verified = verdict.verified;
    if (verdict.keyId !== undefined) entry.keyId = verdict.keyId;
    // A retry or a skip makes the run go on: its actor answers for every later change. A rollback
    // only undoes (its compensations are judged for those who answer already).
    if (verdict.actor !== undefined)
      admitted.noteActor(verdict.actor, verdict.checksSteps === true, action !== 'rollback');
    return entry;
  };
  // Earlier runs act at once, in the same activation, as their release did.
  return <R extends HoldActionBase>(
    request: R,
    apply: (request: R) => OperatorAction,
    judgeOf: JudgeOf<R>,
  ): OperatorAction | Promise<OperatorAction> => {
    const admitted = governance();
    return admitted === undefined ? apply(request) : checked(admitted, request, apply, judgeOf);
  };
}

/** The step with this id (ids are unique in a runbook), looking inside parallels and foreaches. */
function stepById(steps: readonly StepDefinition[], id: string): StepDefinition | undefined {
  return stepTree(steps, { compensate: false }).find(({ step }) => step.id === id)?.step;
}

/** Refuses `with` changes the held step cannot take: only fields its `with` already sets. */
function checkWithChanges(definition: RunbookDefinition, stepId: string, changes: unknown): void {
  if (changes === null || typeof changes !== 'object' || Array.isArray(changes))
    throw new Error('with must be a JSON object of field values');
  const names = Object.keys(changes);
  if (names.length === 0) return;
  const step = stepById(definition.steps, stepId);
  const input = step === undefined ? undefined : definitionRuntime(step).withOf(step);
  if (input === undefined)
    throw new Error(
      `step ${stepId} has no \`with\` to change (only steps that run an action or a child runbook have one)`,
    );
  const sets = Object.keys(input);
  const unknown = names.find((name) => !sets.includes(name));
  if (unknown !== undefined)
    throw new Error(
      `step ${stepId}'s \`with\` has no field \`${unknown}\`; it sets: ${sets.join(', ') || 'nothing'}`,
    );
}

export function setHoldHandlers(
  holds: Holds,
  definition: RunbookDefinition,
  startInputs: Record<string, unknown>,
  scope: Scope,
  governance: () => RunGovernance | undefined = () => undefined,
): void {
  const retrySigned = signedAction(holds, governance, 'retry');
  const skipSigned = signedAction(holds, governance, 'skip');
  const rollbackSigned = signedAction(holds, governance, 'rollback');
  let given = { ...startInputs };
  const rebind = (request: RetryRequest) => {
    const merged = { ...given, ...(request.inputs ?? {}) };
    const bound = bindInputs(definition.inputs, merged);
    if (!bound.ok) throw new Error(`invalid inputs: ${bound.problems.map((p) => p.message).join('; ')}`);
    return { merged, values: bound.values };
  };
  const judged =
    (what: (request: HoldActionBase) => JudgedAction) =>
    (request: HoldActionBase, admitted: RunGovernance): HoldJudgeRequest =>
      holdJudgeRequest(
        definition,
        admitted.admission.definitionHash,
        what(request),
        admitted.secretInputs,
        (key) => holds.withChanges(key),
      );
  const heldPlace = (request: HoldActionBase) => {
    const held = holds.find(request);
    return { stepKey: held.stepKey, stepId: held.stepId, scope: held.scope ?? scope };
  };
  const retryJudged = judged((request) => {
    const retry = request as RetryRequest;
    const changesInputs = retry.inputs !== undefined && Object.keys(retry.inputs).length > 0;
    return {
      kind: 'retry',
      held: heldPlace(retry),
      inputs: changesInputs ? rebind(retry).values : scope.inputs,
      with: (retry.with ?? {}) as Record<string, JsonValue>,
    };
  });
  const skipJudged = judged((request) => ({
    kind: 'skip',
    held: heldPlace(request),
    output: (request as SkipRequest).output,
  }));
  const rollbackJudged = judged(() => ({ kind: 'rollback', inputs: scope.inputs }));
  setHandler(
    retryUpdate,
    (request) =>
      retrySigned(
        request,
        (checked) => {
          if (checked.inputs !== undefined && Object.keys(checked.inputs).length > 0) {
            const { merged, values } = rebind(checked);
            given = merged;
            // Every scope of the run shares this object: later expressions read the new values.
            for (const name of Object.keys(scope.inputs)) delete scope.inputs[name];
            Object.assign(scope.inputs, values);
          }
          return holds.retry(checked);
        },
        retryJudged,
      ),
    {
      validator: (request) => {
        const held = holds.find(request);
        if (request.inputs !== undefined) rebind(request);
        if (request.with !== undefined) checkWithChanges(definition, held.stepId, request.with);
      },
    },
  );
  setHandler(skipUpdate, (request) => skipSigned(request, (checked) => holds.skip(checked), skipJudged), {
    validator: (request) => {
      const held = holds.find(request);
      if (request.output === undefined) throw new Error('skip needs an output (JSON; null for none)');
      const missing = missingOutputField(request.output, outputReads(definition, held.stepId));
      if (missing !== undefined) {
        throw new Error(
          `the output lacks \`${missing}\`, which a later step reads as steps.${held.stepId}.output.${missing}`,
        );
      }
    },
  });
  setHandler(
    rollbackUpdate,
    (request) => rollbackSigned(request, (checked) => holds.rollback(checked), rollbackJudged),
    {
      validator: (request) => {
        if (!holds.open) throw new Error('no step is held in this run; there is nothing to roll back');
        void request;
      },
    },
  );
}
