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
} from '../contract/run-messages';
import type { RunGovernance } from './run-governance';

const verifyHoldAction = proxyActivities<TidelineActivities>({
  startToCloseTimeout: '30s',
  retry: { maximumAttempts: 5, initialInterval: '1s' },
})[VERIFY_HOLD_ACTION_ACTIVITY];

/**
 * Runs the worker admitted: the action's signature is checked (`hold.verify`; required in
 * catalogue mode, else an unsigned action is a claim) before it takes effect. A refused action is
 * recorded, changes nothing and is answered with its code. Earlier runs: nothing is checked.
 */
function signedAction(holds: Holds, governance: () => RunGovernance | undefined, action: HoldActionName) {
  const nonces = new Set<string>();
  const checked = async <R extends HoldActionBase>(
    admitted: RunGovernance,
    request: R,
    apply: (request: R) => OperatorAction,
  ): Promise<OperatorAction> => {
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
          });
    if (!verdict.accepted)
      return holds.refuse(action, request, { code: verdict.code, reason: verdict.reason });
    if (nonce !== undefined) nonces.add(nonce);
    const entry = apply(request);
    entry.verified = verdict.verified;
    if (verdict.keyId !== undefined) entry.keyId = verdict.keyId;
    return entry;
  };
  // Earlier runs act at once, in the same activation, as their release did.
  return <R extends HoldActionBase>(
    request: R,
    apply: (request: R) => OperatorAction,
  ): OperatorAction | Promise<OperatorAction> => {
    const admitted = governance();
    return admitted === undefined ? apply(request) : checked(admitted, request, apply);
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
  setHandler(
    retryUpdate,
    (request) =>
      retrySigned(request, (checked) => {
        if (checked.inputs !== undefined && Object.keys(checked.inputs).length > 0) {
          const { merged, values } = rebind(checked);
          given = merged;
          // Every scope of the run shares this object: later expressions read the new values.
          for (const name of Object.keys(scope.inputs)) delete scope.inputs[name];
          Object.assign(scope.inputs, values);
        }
        return holds.retry(checked);
      }),
    {
      validator: (request) => {
        const held = holds.find(request);
        if (request.inputs !== undefined) rebind(request);
        if (request.with !== undefined) checkWithChanges(definition, held.stepId, request.with);
      },
    },
  );
  setHandler(skipUpdate, (request) => skipSigned(request, (checked) => holds.skip(checked)), {
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
  setHandler(rollbackUpdate, (request) => rollbackSigned(request, (checked) => holds.rollback(checked)), {
    validator: (request) => {
      if (!holds.open) throw new Error('no step is held in this run; there is nothing to roll back');
      void request;
    },
  });
}
