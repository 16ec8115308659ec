// The one walk over a runbook's step tree: every step (nested and compensation ones too) with its
// path, its parent and the containers it sits in, descending into what the caller asks for. It
// walks both shapes of a step: as written (schema `Step`, for validation) and normalised
// (`StepDefinition`, for planning, locks, resources and the interpreter). Also which step ids a
// step makes readable once it completed. Pure and sandbox-safe.
import type { ProblemPath } from './problems';
import type { StepDefinition } from './definition';
import type { Step, StepKind } from './schema';
import { runtimeOf, writtenKind } from './step-kinds/runtime-table';

export type Frame =
  | { type: 'branch'; parallel: string; branch: string }
  | { type: 'foreach'; id: string; variable: string }
  | { type: 'compensate'; owner: string };

export interface PlacedStep<S = Step> {
  step: S;
  /** The step's kind, computed once (a written step's kind key, a normalised step's `kind`). */
  kind: StepKind;
  path: ProblemPath;
  /** The containers the step sits in, outermost first (the last one holds it directly). */
  frames: Frame[];
  /** The step whose branch, foreach body or compensation holds it; undefined at the top. */
  parent: S | undefined;
  /** 0 at the top, one more per container. */
  depth: number;
}

export interface PlacedBranch {
  id: string;
  parallel: string;
  path: ProblemPath;
}

/** What a walk descends into below each step; everything unless set to false. */
export interface Descend {
  /** The steps of a parallel step's branches. */
  branches?: boolean;
  /** A foreach step's body (its steps run once per item). */
  foreach?: boolean;
  /** A step's compensation steps. */
  compensate?: boolean;
}

export type Placed<S> = { step: S; path: ProblemPath };

/**
 * Where a step shape keeps its nested steps: the written and normalised shapes here, and any tree
 * built from them (a plan, cli/plan/plan-tree.ts).
 */
export interface StepShape<S> {
  id(step: S): string;
  kind(step: S): StepKind;
  branches(step: S, path: ProblemPath): { id: string; path: ProblemPath; steps: Placed<S>[] }[];
  foreach(step: S, path: ProblemPath): { variable: string; steps: Placed<S>[] } | undefined;
  compensation(step: S, path: ProblemPath): Placed<S>[];
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

/** A list's steps, each with its path (the list's path and its index). */
export const indexed = <S>(steps: readonly S[], path: ProblemPath): Placed<S>[] =>
  steps.map((step, index) => ({ step, path: [...path, index] }));

const WRITTEN: StepShape<Step> = {
  id: (step) => step.id,
  kind: writtenKind,
  branches: (step, path) => {
    const branches = runtimeOf(writtenKind(step)).nested.branches;
    if (branches === undefined) return [];
    return branches.written(step).map((branch, index) => {
      const branchPath = [...path, branches.writtenField, index];
      return { id: branch.id, path: branchPath, steps: placedList(branch.steps, [...branchPath, 'steps']) };
    });
  },
  foreach: (step, path) => {
    const body = runtimeOf(writtenKind(step)).nested.body?.written(step);
    return body && { variable: body.variable, steps: placedList(body.steps, [...path, 'steps']) };
  },
  compensation: (step, path) => placedList(step.compensate, [...path, 'compensate']),
};

const NORMALISED: StepShape<StepDefinition> = {
  id: (step) => step.id,
  kind: (step) => step.kind,
  branches: (step, path) => {
    const branches = runtimeOf(step.kind).nested.branches;
    if (branches === undefined) return [];
    return branches.normalised(step).map((branch, index) => {
      const branchPath = [...path, branches.normalisedField, index];
      return { id: branch.id, path: branchPath, steps: indexed(branch.steps, [...branchPath, 'steps']) };
    });
  },
  foreach: (step, path) => {
    const body = runtimeOf(step.kind).nested.body?.normalised(step);
    return body && { variable: body.variable, steps: indexed(body.steps, [...path, 'steps']) };
  },
  compensation: (step, path) => indexed(step.compensate, [...path, 'compensate']),
};

/**
 * The walk: each step, then its branches' steps, its foreach body, its compensation (document
 * order), as far as `descend` allows. Child runbooks are never entered (their steps are another
 * definition's).
 */
function walk<S>(
  shape: StepShape<S>,
  steps: Placed<S>[],
  frames: Frame[],
  parent: S | undefined,
  descend: Descend,
  visit: (placed: PlacedStep<S>) => void,
  visitBranch?: (branch: PlacedBranch) => void,
): void {
  for (const { step, path } of steps) {
    visit({ step, kind: shape.kind(step), path, frames, parent, depth: frames.length });
    const id = shape.id(step);
    if (descend.branches !== false) {
      for (const branch of shape.branches(step, path)) {
        visitBranch?.({ id: branch.id, parallel: id, path: branch.path });
        const frame: Frame = { type: 'branch', parallel: id, branch: branch.id };
        walk(shape, branch.steps, [...frames, frame], step, descend, visit, visitBranch);
      }
    }
    const body = descend.foreach === false ? undefined : shape.foreach(step, path);
    if (body !== undefined) {
      const frame: Frame = { type: 'foreach', id, variable: body.variable };
      walk(shape, body.steps, [...frames, frame], step, descend, visit, visitBranch);
    }
    if (descend.compensate !== false) {
      const frame: Frame = { type: 'compensate', owner: id };
      walk(shape, shape.compensation(step, path), [...frames, frame], step, descend, visit, visitBranch);
    }
  }
}

/** A list of steps one step holds, with the frame its steps sit in. */
export interface HeldList {
  frame: Frame;
  steps: { step: Step; path: ProblemPath }[];
}

/**
 * What a written step holds, for a walk that keeps its own order and scope (the validator's
 * expression checks): its branches, its foreach body, and its compensation.
 */
export function heldSteps(
  step: Step,
  path: ProblemPath,
): { branches: HeldList[]; body: HeldList | undefined; compensation: HeldList } {
  const body = WRITTEN.foreach(step, path);
  return {
    branches: WRITTEN.branches(step, path).map((branch) => ({
      frame: { type: 'branch', parallel: step.id, branch: branch.id },
      steps: branch.steps,
    })),
    body: body && { frame: { type: 'foreach', id: step.id, variable: body.variable }, steps: body.steps },
    compensation: {
      frame: { type: 'compensate', owner: step.id },
      steps: WRITTEN.compensation(step, path),
    },
  };
}

/** Visits every step as written, in document order: nested steps after their parent. */
export function walkSteps(
  steps: { step: Step; path: ProblemPath }[],
  frames: Frame[],
  visit: (placed: PlacedStep) => void,
  visitBranch?: (branch: PlacedBranch) => void,
): void {
  walk(WRITTEN, steps, frames, undefined, {}, visit, visitBranch);
}

/** The normalised steps under `steps` (these included), in the walk's order. */
export function stepTree(
  steps: readonly StepDefinition[],
  descend: Descend = {},
): PlacedStep<StepDefinition>[] {
  const placed: PlacedStep<StepDefinition>[] = [];
  walk(NORMALISED, indexed(steps, ['steps']), [], undefined, descend, (step) => void placed.push(step));
  return placed;
}

/**
 * The ids whose output is readable after a step completed: its own, and for a parallel step the
 * steps its branches ran. Steps inside a foreach run once per item, so only the foreach's own
 * output (a list) is readable after it; compensation steps are never readable outside.
 */
export function completedIds(step: Step): string[] {
  const ids: string[] = [];
  const descend: Descend = { foreach: false, compensate: false };
  walk(WRITTEN, [{ step, path: [] }], [], undefined, descend, (placed) => void ids.push(placed.step.id));
  return ids;
}

/** Visits every step of a tree of another shape (a plan's steps), in the walk's order. */
export function walkShape<S>(
  shape: StepShape<S>,
  steps: readonly S[],
  visit: (placed: PlacedStep<S>) => void,
  visitBranch?: (branch: PlacedBranch) => void,
): void {
  walk(shape, indexed(steps, ['steps']), [], undefined, {}, visit, visitBranch);
}
