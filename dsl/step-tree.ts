// Walking the steps of a runbook: every step (nested and compensation ones too) with its path and
// the containers it sits in, and which step ids a step makes readable once it completed. Pure.
import type { ProblemPath } from './problems';
import type { Step } from './schema';
import { DEFAULT_FOREACH_VARIABLE } from './definition';

export type Frame =
  | { type: 'branch'; parallel: string; branch: string }
  | { type: 'foreach'; id: string; variable: string }
  | { type: 'compensate'; owner: string };

export interface PlacedStep {
  step: Step;
  path: ProblemPath;
  frames: Frame[];
}

export interface PlacedBranch {
  id: string;
  parallel: string;
  path: ProblemPath;
}

/** A step list with each step's own path (a single `compensate` step has no index). */
export function placedList(
  value: Step | Step[] | undefined,
  path: ProblemPath,
): { step: Step; path: ProblemPath }[] {
  if (value === undefined) return [];
  if (Array.isArray(value)) return value.map((step, index) => ({ step, path: [...path, index] }));
  return [{ step: value, path }];
}

/** Visits every step in document order: nested steps after their parent, compensation last. */
export function walkSteps(
  steps: { step: Step; path: ProblemPath }[],
  frames: Frame[],
  visit: (placed: PlacedStep) => void,
  visitBranch?: (branch: PlacedBranch) => void,
): void {
  for (const { step, path } of steps) {
    visit({ step, path, frames });
    if ('parallel' in step) {
      step.parallel.forEach((branch, index) => {
        const branchPath = [...path, 'parallel', index];
        visitBranch?.({ id: branch.id, parallel: step.id, path: branchPath });
        const frame: Frame = { type: 'branch', parallel: step.id, branch: branch.id };
        walkSteps(placedList(branch.steps, [...branchPath, 'steps']), [...frames, frame], visit, visitBranch);
      });
    }
    if ('foreach' in step) {
      const frame: Frame = { type: 'foreach', id: step.id, variable: step.as ?? DEFAULT_FOREACH_VARIABLE };
      walkSteps(placedList(step.steps, [...path, 'steps']), [...frames, frame], visit, visitBranch);
    }
    const compensation = placedList(step.compensate, [...path, 'compensate']);
    walkSteps(compensation, [...frames, { type: 'compensate', owner: step.id }], visit, visitBranch);
  }
}

/**
 * The ids whose output is readable after a step completed: its own, and for a parallel step the
 * steps its branches ran. Steps inside a foreach run once per item, so only the foreach's own
 * output (a list) is readable after it; compensation steps are never readable outside.
 */
export function completedIds(step: Step): string[] {
  const ids = [step.id];
  if ('parallel' in step) {
    for (const branch of step.parallel) for (const inner of branch.steps) ids.push(...completedIds(inner));
  }
  return ids;
}
