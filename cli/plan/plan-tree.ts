// A plan's steps as a step tree (dsl/step-tree.ts), so what walks a plan walks it the way the
// definition is walked: each step, then its branches' steps, the steps it holds (a foreach body,
// or a child runbook's steps, which a plan shows), then its compensation.
import { indexed, walkShape, type PlacedStep, type StepShape } from '../../dsl/step-tree';
import type { PlanStep } from './plan-types';

/** The plan's shape; `childRunbooks: false` leaves a child runbook's steps out. */
function plannedShape(childRunbooks: boolean): StepShape<PlanStep> {
  return {
    id: (step) => step.id,
    kind: (step) => step.kind,
    branches: (step, path) =>
      (step.branches ?? []).map((branch, index) => {
        const branchPath = [...path, 'branches', index];
        return { id: branch.id, path: branchPath, steps: indexed(branch.steps, [...branchPath, 'steps']) };
      }),
    foreach: (step, path) =>
      step.steps === undefined || (!childRunbooks && step.kind === 'runbook')
        ? undefined
        : { variable: step.as ?? 'item', steps: indexed(step.steps, [...path, 'steps']) },
    compensation: (step, path) => indexed(step.compensate, [...path, 'compensate']),
  };
}

/** Every step of a plan in the walk's order, with its place; child runbooks' steps unless told. */
export function planTree(steps: readonly PlanStep[], childRunbooks = true): PlacedStep<PlanStep>[] {
  const placed: PlacedStep<PlanStep>[] = [];
  walkShape(plannedShape(childRunbooks), steps, (step) => void placed.push(step));
  return placed;
}
