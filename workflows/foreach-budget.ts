// A foreach's error budget (`maxErrors`, `onMaxErrors`) and ramp: the arithmetic and the report.
// Pure and sandbox-safe; the loop that uses them is foreach-budget-lanes.ts.
//
// The budget: `maxErrors` is a count of items, or a percentage of the foreach's list, floored
// (`"10%"` of 25 items is 2; `"5%"` of 10 items is 0). An item fails when its steps fail (a
// failure `continueOnError` absorbs is no item failure; a cancelled item is not a failed one).
// While at most that many items failed, new items start and the failures are tolerated: the
// foreach succeeds and a failed item's output entry is null. Once one more failed, no new item
// starts; the items in flight finish (`onMaxErrors: finish`, default) or are cancelled (`cancel`),
// and the foreach fails with a report of what succeeded, failed, was cancelled and never started.
// So `0` stops at the first failure, `"100%"` never stops early, and an empty list runs nothing and
// succeeds. The count is over the whole list: batches of a fleet-sized foreach share it.
//
// The ramp: `start` items in flight at first (at most `concurrency`); each time as many items in a
// row succeeded as the current width, the width is multiplied by `factor` (rounded up, at most
// `concurrency`). The first failed item stops the widening for the rest of the loop: the width
// stays where it is, and the budget decides whether items go on starting.
import type { ForeachRampDefinition, ForeachStepDefinition } from '../dsl/definition';

export type ItemOutcome = 'succeeded' | 'failed' | 'cancelled' | 'not-started';

/** A failed item: its position in the foreach's list and its step's failure. */
export interface ItemFailure {
  position: number;
  stepKey: string;
  type: string;
  message: string;
}

/** Where a ramp is: the items allowed in flight, successes in a row at that width, and whether it still widens. */
export interface RampState {
  width: number;
  factor: number;
  streak: number;
  widening: boolean;
}

/** Whether a foreach takes the budgeted loop: only definitions that ask for a budget, a ramp or waves. */
export function isBudgeted(step: ForeachStepDefinition): boolean {
  return step.maxErrors !== undefined || step.ramp !== undefined || step.waves !== undefined;
}

/** A `maxErrors` percentage (`"12.5%"`) in hundredths of a percent (1250): integers stay exact. */
export function percentHundredths(percent: string): number {
  const match = /^(\d+)(?:\.(\d{1,2}))?%$/.exec(percent);
  if (match === null) throw new RangeError(`not a percentage: ${percent}`);
  return Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
}

/**
 * How many failed items a foreach over `itemCount` items tolerates; one more stops new starts.
 * Absent: 0 (the first failure stops them, as without a budget).
 */
export function allowedFailures(maxErrors: number | string | undefined, itemCount: number): number {
  if (maxErrors === undefined) return 0;
  if (typeof maxErrors === 'number') return maxErrors;
  return Math.floor((itemCount * percentHundredths(maxErrors)) / 10_000);
}

export function rampStart(ramp: ForeachRampDefinition, limit: number): RampState {
  return { width: Math.max(1, Math.min(limit, ramp.start)), factor: ramp.factor, streak: 0, widening: true };
}

/** An item succeeded: after `width` in a row, the width grows by `factor` (up to `limit`). */
export function rampAfterSuccess(state: RampState, limit: number): void {
  if (!state.widening || state.width >= limit) return;
  state.streak++;
  if (state.streak < state.width) return;
  state.width = Math.min(limit, Math.ceil(state.width * state.factor));
  state.streak = 0;
}

/** An item failed: the ramp stops widening for the rest of the loop. */
export function rampAfterFailure(state: RampState): void {
  state.widening = false;
}

/** Positions as ranges: `0-4, 7, 9-12` (`none` when empty). */
export function positionRanges(positions: readonly number[]): string {
  const parts: string[] = [];
  let from: number | undefined;
  let to = -2;
  const flush = () => {
    if (from !== undefined) parts.push(from === to ? `${from}` : `${from}-${to}`);
  };
  for (const position of [...positions].sort((a, b) => a - b)) {
    if (position === to + 1) to = position;
    else {
      flush();
      from = position;
      to = position;
    }
  }
  flush();
  return parts.length > 0 ? parts.join(', ') : 'none';
}

function positionsOf(outcomes: readonly ItemOutcome[], wanted: ItemOutcome): number[] {
  const out: number[] = [];
  outcomes.forEach((outcome, position) => outcome === wanted && out.push(position));
  return out;
}

/**
 * The report of a foreach whose budget ran out, e.g. `3 of 30 items failed, more than maxErrors 2
 * allows: failed 4, 9, 17; succeeded 0-3, 5-8, 10-16, 18-19 (18); not started 20-29 (10); first
 * failure at stop_each[4].stop: …`. Positions are indexes in the foreach's list.
 */
export function budgetReport(
  maxErrors: number | string,
  outcomes: readonly ItemOutcome[],
  failures: readonly ItemFailure[],
): string {
  const allowed = allowedFailures(maxErrors, outcomes.length);
  const written = typeof maxErrors === 'number' ? `${maxErrors}` : `${maxErrors} (${allowed} items)`;
  const part = (label: string, wanted: ItemOutcome, always: boolean): string[] => {
    const positions = positionsOf(outcomes, wanted);
    if (positions.length === 0 && !always) return [];
    return [`${label} ${positionRanges(positions)} (${positions.length})`];
  };
  const first = [...failures].sort((a, b) => a.position - b.position)[0];
  return [
    `${failures.length} of ${outcomes.length} items failed, more than maxErrors ${written} allows: ` +
      [
        ...part('failed', 'failed', true),
        ...part('succeeded', 'succeeded', true),
        ...part('cancelled', 'cancelled', false),
        ...part('not started', 'not-started', true),
      ].join('; '),
    ...(first ? [`first failure at ${first.stepKey}: ${first.type}: ${first.message}`] : []),
  ].join('; ');
}

/** A batch of a budgeted foreach: what is left of the budget, and the ramp where it is. */
export interface BatchBudget {
  allowed: number;
  cancelInFlight: boolean;
  ramp?: RampState;
}

/** What a batch of a budgeted foreach did with it (positions in the batch). */
export interface BatchBudgetResult {
  outcomes: ItemOutcome[];
  failures: ItemFailure[];
  exceeded: boolean;
  ramp?: RampState;
}

/** The budget of one foreach across its batches (one batch when it runs inline). */
export class BudgetTally {
  readonly outcomes: ItemOutcome[];
  readonly failures: ItemFailure[] = [];
  readonly allowed: number;
  exceeded = false;
  private ramp: RampState | undefined;

  constructor(
    private readonly step: ForeachStepDefinition,
    itemCount: number,
    limit: number,
  ) {
    this.outcomes = new Array<ItemOutcome>(itemCount).fill('not-started');
    this.allowed = allowedFailures(step.maxErrors, itemCount);
    if (step.ramp !== undefined) this.ramp = rampStart(step.ramp, limit);
  }

  /** The budget the next batch starts with. */
  forBatch(): BatchBudget {
    const budget: BatchBudget = {
      allowed: this.allowed - this.failures.length,
      cancelInFlight: this.step.onMaxErrors === 'cancel',
    };
    if (this.ramp !== undefined) budget.ramp = this.ramp;
    return budget;
  }

  /** Counts what a batch starting at `offset` did. */
  add(offset: number, batch: BatchBudgetResult): void {
    batch.outcomes.forEach((outcome, position) => (this.outcomes[offset + position] = outcome));
    for (const failure of batch.failures)
      this.failures.push({ ...failure, position: offset + failure.position });
    if (batch.exceeded) this.exceeded = true;
    if (batch.ramp !== undefined) this.ramp = batch.ramp;
  }

  /**
   * Why the foreach fails, if its budget ran out: the report with `maxErrors`, else (a ramp
   * without a budget) its first failed item's failure, as a foreach without either fails.
   */
  failure(): { stepKey?: string; type: string; message: string } | undefined {
    if (!this.exceeded) return undefined;
    if (this.step.maxErrors === undefined) return this.failures[0];
    return {
      type: 'FOREACH_MAX_ERRORS',
      message: budgetReport(this.step.maxErrors, this.outcomes, this.failures),
    };
  }
}
