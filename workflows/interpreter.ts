// Runs the steps of a normalised runbook: common fields (if, continueOnError, compensate) here,
// each step kind in step-kinds.ts. Deterministic workflow code: all I/O goes through activities.
import { CancellationScope, isCancellation, sleep } from '@temporalio/workflow';
import type { StepDefinition } from '../dsl/definition';
import type { JsonValue } from '../dsl/expressions';
import { evaluateCondition } from '../dsl/expressions';
import { formatDuration } from '../dsl/durations';
import { definitionRuntime } from '../dsl/step-kinds/runtime-table';
import { resolveDurationMs } from '../dsl/templates';
import { PATCHES } from '../contract/patches';
import { hasPatch } from './release-gate';
import type { RunState } from './run-state';
import type { StepRecord } from '../contract/run-messages';
import { RUN_CANCELLED, StepFailed, runCancelled, summariseFailure } from './step-failure';
import { createdResource, touchedResources } from './step-resources';
import { inStepSpan } from './step-tracing';

type ApproveStep = Extract<StepDefinition, { kind: 'approve' }>;

export interface StepResult {
  output: JsonValue;
  status: 'done' | 'failed' | 'skipped';
}

/** What expressions see: `inputs`, `steps.<id>.output`, and loop variables. */
export interface Scope {
  inputs: Record<string, JsonValue>;
  steps: Record<string, StepResult>;
  vars: Record<string, JsonValue>;
}

export function celVariables(scope: Scope): Record<string, unknown> {
  return { ...scope.vars, inputs: scope.inputs, steps: scope.steps };
}

export interface Compensation {
  ownerKey: string;
  steps: StepDefinition[];
  scope: Scope;
}

/** Runs one step kind and gives its output. */
export type KindRunner = (
  step: StepDefinition,
  scope: Scope,
  key: string,
  interpreter: Interpreter,
) => Promise<JsonValue>;

export class Interpreter {
  private readonly compensations: Compensation[] = [];
  /** How many side-by-side constructs (foreach lanes, parallel branches) are running now. */
  concurrentLanes = 0;
  /** Calls beside other steps run as activity tasks (workflows/concurrent-calls.ts). */
  concurrentCallsAsTasks = false;
  /** Local calls report their attempts (workflows/local-calls.ts). */
  localCallAttempts = false;
  /** A parallel sends its siblings' cancellation before failing (workflows/sibling-cancellation.ts). */
  siblingCancelSettles = false;

  constructor(
    readonly state: RunState,
    private readonly runKind: KindRunner,
    /** The service locks this run holds, handed to child runbooks. */
    readonly heldLocks: () => string[] = () => [],
  ) {}

  /** Runs steps one after another; a failure (not absorbed by continueOnError) stops the list. */
  async runSteps(steps: StepDefinition[], scope: Scope, prefix: string, compensates?: string): Promise<void> {
    for (const step of steps) await this.runStep(step, scope, prefix, compensates);
  }

  /** Creates pending records for steps, so progress shows what is still to come. */
  plan(steps: StepDefinition[], prefix: string): void {
    for (const step of steps) this.recordFor(step, `${prefix}${step.id}`);
  }

  private recordFor(step: StepDefinition, key: string, compensates?: string): StepRecord {
    return this.state.get(key) ?? this.state.record(key, step, compensates);
  }

  /** Runs one step (and, after a hold, its retries) inside a step span (workflows/step-tracing.ts). */
  runStep(step: StepDefinition, scope: Scope, prefix: string, compensates?: string): Promise<void> {
    const record = this.recordFor(step, `${prefix}${step.id}`, compensates);
    return inStepSpan(this.state.runbook, record, () => this.runStepOnce(step, scope, prefix, compensates));
  }

  private async runStepOnce(
    step: StepDefinition,
    scope: Scope,
    prefix: string,
    compensates?: string,
  ): Promise<void> {
    const key = `${prefix}${step.id}`;
    const record = this.recordFor(step, key, compensates);
    const undoable = compensates === undefined && step.compensate.length > 0;
    let finishesBeforeCancel = false;
    try {
      if (step.if !== undefined && !evaluateCondition(step.if, celVariables(scope))) {
        this.state.mark(record, 'skipped');
        scope.steps[step.id] = { output: null, status: 'skipped' };
        return;
      }
      this.state.mark(record, 'running');
      this.state.noteResources(record, touchedResources(step, celVariables(scope), this.state.secretValues));
      // A change with an undo is not abandoned half-way: whatever it did must be registered for
      // compensation, so a cancellation waits for its answer (retries included).
      finishesBeforeCancel =
        undoable && definitionRuntime(step).settlesBeforeCancel && hasPatch(PATCHES.undoableCallsFinish);
      if (finishesBeforeCancel && CancellationScope.current().consideredCancelled) {
        throw runCancelled(); // not started: nothing to finish
      }
      // The worker's policies for a change, as its target is now (runs the worker admitted).
      const ask = async (approval: ApproveStep, approvalKey: string, at: Scope = scope) => {
        await this.runKind(approval, at, approvalKey, this);
      };
      if (this.state.governance !== undefined && step.kind === 'call' && step.actionKind !== 'read') {
        await this.state.governance.beforeChange(step, key, scope, ask);
      } else if (this.state.governance !== undefined && step.kind === 'runbook') {
        await this.state.governance.askInheritedAgain(ask);
      }
      const output = finishesBeforeCancel
        ? await CancellationScope.nonCancellable(() => this.runWithTimeout(step, scope, key))
        : await this.runWithTimeout(step, scope, key);
      scope.steps[step.id] = { output, status: 'done' };
      const created = createdResource(step, output, this.state.secretValues);
      if (created !== undefined) this.state.noteResources(record, [created]);
      this.state.mark(record, 'done');
      if (undoable) this.compensations.push({ ownerKey: key, steps: step.compensate, scope });
    } catch (error) {
      if (isCancellation(error)) {
        this.state.mark(record, 'failed', { ...RUN_CANCELLED });
        throw error;
      }
      const failure = summariseFailure(error);
      this.state.mark(record, 'failed', failure);
      if (step.continueOnError) {
        scope.steps[step.id] = { output: null, status: 'failed' };
        return;
      }
      const holds = this.state.holds;
      if (compensates === undefined && holds?.holds(step) === true) {
        // onFailure: hold — only definitions (or runs) that ask for it get here.
        const decision = await holds.wait(key, step.id, failure, scope);
        if (decision.kind === 'retry') {
          delete record.error;
          // Other inputs or `with` change what was approved: those approvals are asked again.
          for (const approval of this.state.governance?.outdatedApprovals() ?? [])
            await this.runKind(approval.step, approval.scope, approval.key, this);
          return this.runStep(step, scope, prefix, compensates);
        }
        if (decision.kind === 'skip') {
          scope.steps[step.id] = { output: decision.output, status: 'done' };
          this.state.mark(record, 'done');
          return;
        }
      }
      if (error instanceof StepFailed) throw error;
      throw new StepFailed(key, failure.type, failure.message);
    }
    // The undo is registered; now the cancellation that arrived meanwhile takes effect. A change
    // without an undo that was let finish (changesSettleBeforeCancel) must not swallow it either.
    if (
      CancellationScope.current().consideredCancelled &&
      (finishesBeforeCancel || hasPatch(PATCHES.changesSettleBeforeCancel))
    ) {
      throw runCancelled();
    }
  }

  /**
   * Calls, waits, approvals and child runbooks apply `timeout` themselves (as activity, wait,
   * approval and child deadlines); for the other kinds the step is cancelled when time is up.
   */
  private async runWithTimeout(step: StepDefinition, scope: Scope, key: string): Promise<JsonValue> {
    if (definitionRuntime(step).ownTimeout || step.timeoutMs === undefined)
      return this.runKind(step, scope, key, this);
    const limitMs = resolveDurationMs(step.timeoutMs, celVariables(scope));
    const stepScope = new CancellationScope();
    const timerScope = new CancellationScope();
    let timedOut = false;
    const timer = timerScope
      .run(() => sleep(limitMs))
      .then(
        () => {
          timedOut = true;
          stepScope.cancel();
        },
        () => undefined,
      );
    try {
      return await stepScope.run(() => this.runKind(step, scope, key, this));
    } catch (error) {
      if (timedOut && isCancellation(error)) {
        throw new StepFailed(key, 'STEP_TIMEOUT', `did not finish within ${formatDuration(limitMs)}`);
      }
      throw error;
    } finally {
      timerScope.cancel();
      await timer;
    }
  }

  /** The undo work registered so far, oldest first (a foreach batch hands it to its parent run). */
  registeredCompensations(): readonly Compensation[] {
    return this.compensations;
  }

  /** Registers undo work of steps that ran elsewhere (a foreach batch's child workflow). */
  registerCompensation(entry: Compensation): void {
    this.compensations.push(entry);
  }

  /**
   * Undoes the completed steps, newest first. A compensation that fails is recorded and the
   * others still run: leaving fewer orphans beats stopping at the first problem.
   */
  async compensate(): Promise<void> {
    while (this.compensations.length > 0) {
      const entry = this.compensations.pop()!;
      const owner = this.state.get(entry.ownerKey);
      if (owner) this.state.mark(owner, 'compensating');
      let ok = true;
      try {
        await this.runSteps(entry.steps, entry.scope, `${entry.ownerKey}/undo.`, entry.ownerKey);
      } catch (error) {
        ok = false;
        if (owner) owner.error = summariseFailure(error);
      }
      if (owner) this.state.mark(owner, ok ? 'compensated' : 'compensation-failed');
    }
  }
}
