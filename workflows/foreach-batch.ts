// Fleet-sized foreach loops, in batches of child workflows.
//
// Why: a history is capped at 50K events / 50 MB (warnings at 10K / 10 MB). Run inline, every
// iteration adds its activities and workflow tasks to the run's history: stop-dev-services over
// 1,000 services would take ~20K events. So a foreach over more than FOREACH_BATCH_SIZE items
// runs its items in slices of that size, each in a child workflow (`foreachBatchWorkflow`,
// foreach-batch-workflow.ts) that runs its slice exactly as the inline loop would (same lanes,
// same concurrency, same step keys `<foreach>[<index>].<step>`, per-iteration locks). The run
// itself then holds a handful of events per batch, and each child ~12 events per item.
//
// The design, kept as simple as can be correct:
// - Batches run one after the other, never two at once: the foreach's concurrency holds across
//   the whole loop, and "newest first" needs no ordering between batches.
// - A child gets only what its body reads: the items (cut to the fields read), the inputs and
//   earlier steps its expressions name, and the locks the run holds (expression-scope.ts).
// - A child never compensates. It returns, for every iteration it started, the step results the
//   iteration produced — cut to what the run reads of them (later steps and outputs, through
//   list-element-reads.ts, and compensations), since the answer is stored in both histories — and
//   compact step records, plus the undo work its interpreter registered, in registration order; it
//   returns (does not fail) when an iteration fails or when it is cancelled — an undoable call in
//   flight finishes first, as inline. The run registers that undo work with its own interpreter
//   and merges the child's step records into its progress, so compensation (of this foreach, or
//   of everything after a later step failed) undoes every done iteration of every batch, newest
//   first, exactly as if the loop had run inline. The cancelled child ends "completed": its
//   answer is what carries the undo work (a cancelled workflow carries none).
// - The foreach's output (one entry per item) is assembled from the children's answers, so later
//   steps and outputs read it unchanged (stop-dev-services' `stopped`).
// Undoing runs in the run's own history: a failure after 1,000 stops adds ~10K events there,
// inside the limits. A child that does not answer (terminated) loses its batch's undo work.
import type { Admission } from '../contract/admission-messages';
import { executeChild, workflowInfo } from '@temporalio/workflow';
import type { ForeachStepDefinition, StepDefinition } from '../dsl/definition';
import { narrowVariables, stepsNeeds } from '../dsl/expression-scope';
import { foreachOutputReads, type ElementReads } from '../dsl/list-element-reads';
import type { JsonValue } from '../dsl/expressions';
import { stepTree } from '../dsl/step-tree';
import { locksHeldFor } from './foreach-locks';
import type { Interpreter, Scope, StepResult } from './interpreter';
import type { RunFailure, StepRecord, StepResource } from '../contract/run-messages';
import { RunState } from './run-state';
import { StepFailed, runCancelled } from './step-failure';
import { FOREACH_BATCH_WORKFLOW_TYPE } from '../contract/workflow-types';
import { BudgetTally, isBudgeted, type BatchBudget, type BatchBudgetResult } from './foreach-budget';
import { throwIfBudgetSpent } from './foreach-budget-lanes';

export type { BatchBudgetResult } from './foreach-budget';

/** Items per batch child; a foreach with at most this many items runs inline. */
export const FOREACH_BATCH_SIZE = 100;

export interface ForeachBatchInput {
  runbook: string;
  /** The foreach step's key in the run; iterations are `<key>[<offset + position>].`. */
  key: string;
  step: ForeachStepDefinition;
  items: JsonValue[];
  offset: number;
  concurrency: number;
  /** What the body reads of the run's scope, and nothing else. */
  scope: Scope;
  /** Service locks the run (and an enclosing iteration) holds. */
  heldLocks: string[];
  /**
   * What the run reads of each iteration's output, per body step id: these fields, or the whole
   * output (null). A step not named is read by nothing. Absent (older runs, nested batches): all.
   */
  outputReads?: Record<string, string[] | null>;
  /** A foreach with `maxErrors` or `ramp` only: what is left of its budget (foreach-budget.ts). */
  budget?: BatchBudget;
  /** The run's admission (runs the worker admitted): its items meet the same policies. */
  admission?: Admission;
}

/** Undo work the child registered: the owner step (by id) and where its scope comes from. */
export interface BatchUndo {
  ownerKey: string;
  ownerId: string;
  /** The batch position of the iteration whose scope the undo reads… */
  position?: number;
  /** …or, for a scope nested deeper (a foreach inside the body), its variables and step results. */
  scope?: { vars: Record<string, JsonValue>; steps: Record<string, StepResult> };
}

export interface ForeachBatchResult {
  /** Per batch position: the step results the iteration added (null: not started). */
  iterations: Array<Record<string, StepResult> | null>;
  done: boolean[];
  undo: BatchUndo[];
  /**
   * The iterations' step records, without what the run knows from the step itself (kind, name,
   * action, waitingFor): `compactRecord`. Older children sent whole records.
   */
  records: BatchRecord[];
  failure?: RunFailure;
  cancelled: boolean;
  /** With `budget`: the items' outcomes and failures (the batch then has no `failure`). */
  budget?: BatchBudgetResult;
}

/** The wire form of what a runbook reads of a foreach's output; undefined when it reads it all. */
export function outputReadsOf(reads: ElementReads): Record<string, string[] | null> | undefined {
  if (reads === 'whole') return undefined;
  const out: Record<string, string[] | null> = {};
  for (const [field, subs] of reads) out[field] = subs === 'whole' ? null : [...subs];
  return out;
}

/**
 * An iteration's step results cut to what the run needs of them: what later steps and outputs
 * read of the foreach's output (`outputReads`), and whole results for the steps the body's
 * compensations read (they run in the run, with this iteration's scope). Unread outputs are null.
 */
export function narrowIteration(
  results: Record<string, StepResult>,
  outputReads: Record<string, string[] | null> | undefined,
  readByUndo: Set<string> | 'whole',
): Record<string, StepResult> {
  if (outputReads === undefined || readByUndo === 'whole') return results;
  const out: Record<string, StepResult> = {};
  for (const [id, result] of Object.entries(results)) {
    const fields = outputReads[id];
    const output = result.output;
    if (readByUndo.has(id) || fields === null) out[id] = result;
    else if (fields === undefined) out[id] = { status: result.status, output: null };
    else if (output === null || typeof output !== 'object' || Array.isArray(output)) out[id] = result;
    else {
      const kept: Record<string, JsonValue> = {};
      for (const field of fields)
        if (Object.prototype.hasOwnProperty.call(output, field)) kept[field] = output[field]!;
      out[id] = { status: result.status, output: kept };
    }
  }
  return out;
}

/** The step ids whose results the body's compensations read ('whole': any, or all). */
export function stepsReadByUndo(step: ForeachStepDefinition): Set<string> | 'whole' {
  const read = new Set<string>();
  for (const owner of stepsById(step.steps).values()) {
    const needs = stepsNeeds(owner.compensate).get('steps');
    if (needs === 'whole') return 'whole';
    for (const id of needs ?? []) read.add(id);
  }
  return read;
}

export type BatchRecord = Omit<StepRecord, 'kind'> & Partial<Pick<StepRecord, 'kind'>>;

/** A step record as a batch answers it: the run adds back what the step definition says. */
export function compactRecord(record: StepRecord): BatchRecord {
  const { kind: _kind, name: _name, action: _action, waitingFor: _waitingFor, ...rest } = record;
  return rest;
}

/** Every step of a body by id (nested and compensation steps too): ids are unique in a runbook. */
export function stepsById(steps: readonly StepDefinition[]): Map<string, StepDefinition> {
  return new Map(stepTree(steps).map(({ step }) => [step.id, step]));
}

/** The items cut to what the body reads of its loop variable (whole when read as a whole). */
function narrowItems(step: ForeachStepDefinition, items: JsonValue[]): JsonValue[] {
  const needs = stepsNeeds(step.steps);
  const fields = needs.get(step.as);
  if (fields === undefined) return items.map(() => null);
  return items.map((item) => narrowVariables({ [step.as]: item }, new Map([[step.as, fields]]))[step.as]!);
}

function narrowScope(step: ForeachStepDefinition, scope: Scope): Scope {
  const needs = stepsNeeds(step.steps);
  return {
    inputs: needs.has('inputs') ? narrowVariables({ inputs: scope.inputs }, needs).inputs! : {},
    steps: needs.has('steps') ? narrowVariables({ steps: scope.steps }, needs).steps! : {},
    vars: narrowVariables(scope.vars, needs),
  };
}

export async function runForeachInBatches(
  step: ForeachStepDefinition,
  items: JsonValue[],
  limit: number,
  scope: Scope,
  key: string,
  interpreter: Interpreter,
): Promise<JsonValue[]> {
  const results: JsonValue[] = new Array<JsonValue>(items.length).fill(null);
  const narrowed = narrowScope(step, scope);
  const bodySteps = stepsById(step.steps);
  const heldLocks = [...interpreter.heldLocks(), ...locksHeldFor(scope)];
  const parentId = workflowInfo().workflowId;
  const definition = interpreter.state.definition;
  const outputReads = definition && outputReadsOf(foreachOutputReads(definition, step.id));
  // Only a definition with `maxErrors` or `ramp` has a tally (foreach-budget-lanes.ts: no run
  // started on an earlier release has one); without it the batches run as they always did.
  const tally = isBudgeted(step) ? new BudgetTally(step, items.length, limit) : undefined;
  for (let offset = 0; offset < items.length; offset += FOREACH_BATCH_SIZE) {
    // The budget ran out in an earlier batch: the later ones never start.
    if (tally?.exceeded === true) break;
    const slice = items.slice(offset, offset + FOREACH_BATCH_SIZE);
    const last = offset + slice.length - 1;
    const input: ForeachBatchInput = {
      runbook: interpreter.state.runbook,
      key,
      step,
      items: narrowItems(step, slice),
      offset,
      concurrency: limit,
      scope: narrowed,
      heldLocks,
    };
    if (outputReads !== undefined) input.outputReads = outputReads;
    if (tally !== undefined) input.budget = tally.forBatch();
    const governance = interpreter.state.governance;
    if (governance !== undefined) input.admission = governance.forChildren();
    const answer = await executeChild<(input: ForeachBatchInput) => Promise<ForeachBatchResult>>(
      FOREACH_BATCH_WORKFLOW_TYPE,
      {
        args: [input],
        workflowId: `${parentId}/${key}[${offset}-${last}]`,
        staticSummary: `${step.name ?? key}: items ${offset}–${last}`,
      },
    );
    const iterationScope = (position: number): Scope => ({
      inputs: scope.inputs,
      steps: { ...scope.steps, ...(answer.iterations[position] ?? {}) },
      vars: { ...scope.vars, [step.as]: slice[position] ?? null },
    });
    const named: StepResource[] = [];
    for (const record of answer.records) {
      const owner = bodySteps.get(record.id);
      if (owner === undefined) continue;
      const merged = Object.assign(
        interpreter.state.get(record.key) ?? interpreter.state.record(record.key, owner),
        record,
      );
      const waitingFor = RunState.waitingFor(owner);
      if (waitingFor !== undefined) merged.waitingFor ??= waitingFor;
      if (record.resources !== undefined) named.push(...record.resources);
    }
    // The batch's steps named these services: the run's TidelineServices lists them too.
    if (named.length > 0) interpreter.state.onResources(named);
    const scopes = new Map<number, Scope>();
    for (const undo of answer.undo) {
      const owner = bodySteps.get(undo.ownerId);
      if (owner === undefined) continue;
      let undoScope: Scope;
      if (undo.position !== undefined) {
        undoScope = scopes.get(undo.position) ?? iterationScope(undo.position);
        scopes.set(undo.position, undoScope);
      } else {
        undoScope = {
          inputs: scope.inputs,
          steps: { ...scope.steps, ...(undo.scope?.steps ?? {}) },
          vars: { ...scope.vars, ...(undo.scope?.vars ?? {}) },
        };
      }
      interpreter.registerCompensation({
        ownerKey: undo.ownerKey,
        steps: owner.compensate,
        scope: undoScope,
      });
    }
    answer.done.forEach((done, position) => {
      if (!done) return;
      const steps = answer.iterations[position] ?? {};
      results[offset + position] = Object.fromEntries(
        step.steps.map((s) => [s.id, steps[s.id]?.output ?? null]),
      );
    });
    if (tally !== undefined && answer.budget !== undefined) tally.add(offset, answer.budget);
    if (answer.failure !== undefined) {
      throw new StepFailed(answer.failure.stepKey, answer.failure.type, answer.failure.message);
    }
    if (answer.cancelled) throw runCancelled();
  }
  if (tally !== undefined) throwIfBudgetSpent(tally, key);
  return results;
}
