// Held steps (`onFailure: hold`): a failed step keeps the run open until an operator retries it,
// skips it with a stand-in output, or rolls the run back — or until the hold timeout rolls it
// back. Only reached when a definition (or `run --on-failure hold`) asks for it, so runs that do
// not hold emit exactly the commands they did before. Workflow code: no I/O.
import { condition } from '@temporalio/workflow';
import type { OnFailurePolicy, StepDefinition } from '../dsl/definition';
import type { JsonValue } from '../dsl/expressions';
import { definitionRuntime } from '../dsl/step-kinds/runtime-table';
import type {
  HeldStep,
  HoldActionBase,
  OperatorAction,
  RetryRequest,
  RollbackRequest,
  SkipRequest,
} from '../contract/run-messages';
import type { Scope } from './interpreter';

export type HoldDecision = { kind: 'retry' } | { kind: 'skip'; output: JsonValue } | { kind: 'rollback' };

interface HoldWaiter extends HeldStep {
  stepId: string;
  /** The scope the held step runs in (what an action is judged over). */
  scope: Scope | undefined;
  decision?: HoldDecision;
}

export interface HoldPolicy {
  /** `run --on-failure`: wins over the definition. */
  override?: OnFailurePolicy;
  /** The runbook's `onFailure`. */
  runbook?: OnFailurePolicy;
  timeoutMs: number;
}

export class Holds {
  private readonly waiters = new Map<string, HoldWaiter>();
  readonly actions: OperatorAction[] = [];
  /** Set once the run rolls back (operator or timeout): every hold gives way, no new one opens. */
  rollingBack = false;
  /** Steps an operator retried: a create among them adopts what an earlier attempt made. */
  private readonly retried = new Set<string>();
  /** `with` fields an operator changed on a retry, by step key (kept for later retries too). */
  private readonly changedWith = new Map<string, Record<string, JsonValue>>();
  /** Called when a hold opens or ends (the run's visibility follows; run-visibility.ts). */
  onChange: () => void = () => undefined;

  constructor(private readonly policy: HoldPolicy) {}

  /** Whether this step's failure holds the run. */
  holds(step: StepDefinition): boolean {
    if (this.rollingBack || !definitionRuntime(step).canHold) return false;
    return (this.policy.override ?? step.onFailure ?? this.policy.runbook ?? 'rollback') === 'hold';
  }

  /** Whether an operator retried this step (its create, if any, may have taken effect). */
  wasRetried(stepKey: string): boolean {
    return this.retried.has(stepKey);
  }

  /** The `with` values an operator gave this step on a retry, if any. */
  withChanges(stepKey: string): Record<string, JsonValue> | undefined {
    return this.changedWith.get(stepKey);
  }

  get open(): boolean {
    return this.waiters.size > 0;
  }

  list(): HeldStep[] {
    return [...this.waiters.values()].map(({ stepKey, error, heldAt, deadline }) => ({
      stepKey,
      error,
      heldAt,
      deadline,
    }));
  }

  /** Waits for an operator's decision on a failed step (the hold timeout rolls back). */
  async wait(
    stepKey: string,
    stepId: string,
    error: HeldStep['error'],
    scope?: Scope,
  ): Promise<HoldDecision> {
    const waiter: HoldWaiter = {
      stepKey,
      stepId,
      scope,
      error,
      heldAt: Date.now(),
      deadline: Date.now() + this.policy.timeoutMs,
    };
    this.waiters.set(stepKey, waiter);
    this.onChange();
    try {
      const decided = await condition(
        () => waiter.decision !== undefined || this.rollingBack,
        this.policy.timeoutMs,
        // What the Web UI's timeline names the timer (metadata: replay does not compare it).
        { summary: `held ${stepKey}: rolls back without an operator` },
      );
      if (waiter.decision !== undefined) {
        if (waiter.decision.kind === 'retry') this.retried.add(stepKey);
        return waiter.decision;
      }
      if (!decided) {
        this.rollingBack = true;
        this.actions.push({ action: 'hold-timeout', stepKey, by: null, reason: null, at: Date.now() });
      }
      return { kind: 'rollback' };
    } finally {
      this.waiters.delete(stepKey);
      this.onChange();
    }
  }

  /** The held step a request is for; throws (refusing the update) when there is none. */
  find(request: HoldActionBase): HoldWaiter {
    const open = [...this.waiters.values()].filter((w) => w.decision === undefined);
    if (open.length === 0) throw new Error('no step is held in this run; there is nothing to act on');
    if (request.step === undefined) {
      if (open.length > 1) {
        throw new Error(
          `several steps are held (${open.map((w) => w.stepKey).join(', ')}); name one with --step`,
        );
      }
      return open[0]!;
    }
    const match = open.find((w) => w.stepKey === request.step || w.stepId === request.step);
    if (match === undefined) {
      throw new Error(`step "${request.step}" is not held; held: ${open.map((w) => w.stepKey).join(', ')}`);
    }
    return match;
  }

  private record(action: OperatorAction['action'], stepKey: string, request: HoldActionBase): OperatorAction {
    const entry: OperatorAction = {
      action,
      stepKey,
      by: request.by ?? null,
      reason: request.reason ?? null,
      at: Date.now(),
    };
    this.actions.push(entry);
    return entry;
  }

  /** Records an action the worker refused (unsigned, unknown key, bad signature): nothing changes. */
  refuse(
    action: 'retry' | 'skip' | 'rollback',
    request: HoldActionBase,
    refused: NonNullable<OperatorAction['refused']>,
  ): OperatorAction {
    const open = [...this.waiters.values()].filter((w) => w.decision === undefined);
    const stepKey = request.step ?? open.map((w) => w.stepKey).join(', ');
    const entry = this.record(action, stepKey, request);
    entry.refused = refused;
    this.onChange();
    return entry;
  }

  retry(request: RetryRequest): OperatorAction {
    const waiter = this.find(request);
    waiter.decision = { kind: 'retry' };
    const entry = this.record('retry', waiter.stepKey, request);
    const names = Object.keys(request.inputs ?? {});
    if (names.length > 0) entry.inputs = names;
    const fields = Object.keys(request.with ?? {});
    if (fields.length > 0) {
      const before = this.changedWith.get(waiter.stepKey) ?? {};
      this.changedWith.set(waiter.stepKey, { ...before, ...request.with });
      entry.with = fields;
    }
    return entry;
  }

  skip(request: SkipRequest): OperatorAction {
    const waiter = this.find(request);
    waiter.decision = { kind: 'skip', output: request.output };
    return this.record('skip', waiter.stepKey, request);
  }

  rollback(request: RollbackRequest): OperatorAction {
    const open = [...this.waiters.values()].filter((w) => w.decision === undefined);
    if (open.length === 0) throw new Error('no step is held in this run; there is nothing to roll back');
    for (const waiter of open) waiter.decision = { kind: 'rollback' };
    this.rollingBack = true;
    return this.record('rollback', open.map((w) => w.stepKey).join(', '), request);
  }
}
