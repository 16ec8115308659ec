// The operator's actions on a held run, as workflow updates whose validators refuse a wrong
// action before it is recorded: retry (optionally with changed inputs, bound like at start, or
// changed values of fields the step's `with` sets), skip (with a stand-in output that has every
// field later steps read), rollback.
import { setHandler } from '@temporalio/workflow';
import type { RunbookDefinition, StepDefinition } from '../dsl/definition';
import { bindInputs } from '../dsl/inputs';
import { missingOutputField, outputReads } from '../dsl/output-reads';
import { stepTree } from '../dsl/step-tree';
import type { Holds } from './holds';
import type { Scope } from './interpreter';
import { retryUpdate, rollbackUpdate, skipUpdate, type RetryRequest } from '../contract/run-messages';

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
  if (step === undefined || (step.kind !== 'call' && step.kind !== 'wait' && step.kind !== 'runbook'))
    throw new Error(`step ${stepId} has no \`with\` to change (only call, wait and runbook steps do)`);
  const sets = Object.keys(step.with);
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
): void {
  let given = { ...startInputs };
  const rebind = (request: RetryRequest) => {
    const merged = { ...given, ...(request.inputs ?? {}) };
    const bound = bindInputs(definition.inputs, merged);
    if (!bound.ok) throw new Error(`invalid inputs: ${bound.problems.map((p) => p.message).join('; ')}`);
    return { merged, values: bound.values };
  };
  setHandler(
    retryUpdate,
    (request) => {
      if (request.inputs !== undefined && Object.keys(request.inputs).length > 0) {
        const { merged, values } = rebind(request);
        given = merged;
        // Every scope of the run shares this object: later expressions read the new values.
        for (const name of Object.keys(scope.inputs)) delete scope.inputs[name];
        Object.assign(scope.inputs, values);
      }
      return holds.retry(request);
    },
    {
      validator: (request) => {
        const held = holds.find(request);
        if (request.inputs !== undefined) rebind(request);
        if (request.with !== undefined) checkWithChanges(definition, held.stepId, request.with);
      },
    },
  );
  setHandler(skipUpdate, (request) => holds.skip(request), {
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
  setHandler(rollbackUpdate, (request) => holds.rollback(request), {
    validator: (request) => {
      if (!holds.open) throw new Error('no step is held in this run; there is nothing to roll back');
      void request;
    },
  });
}
