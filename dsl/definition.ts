// The normalised runbook definition: what the interpreter workflow receives as its input. Durations
// are milliseconds, defaults are filled, each step has a `kind` discriminant, conditions are bare
// CEL, and child runbooks are embedded, so the workflow never reads files. Plain JSON data, so it
// travels through Temporal's payload converter unchanged. Types and constants only.
import type { ActionName, OperationKind } from '../cloud/operations';
import type { JsonValue } from './expressions';
import type { InputType } from './schema-primitives';
import type { NotifySubscription } from './notify-subscriptions';

/** Milliseconds, or a `${{ … }}` template resolved at run time with `resolveDurationMs`. */
export type DurationValue = number | string;

export interface InputDefinition {
  type: InputType;
  description?: string;
  /** Must be given when there is no default (unless `required: false` was written). */
  required: boolean;
  default?: JsonValue;
  secret: boolean;
  pattern?: string;
  /** Bounds: value for integer/number, milliseconds for duration, length for string/list. */
  min?: number;
  max?: number;
  /** The allowed values of an enum input. */
  values?: string[];
}

export interface OutputDefinition {
  /** JSON that may hold `${{ … }}` templates, resolved when the run ends. */
  value: JsonValue;
  secret: boolean;
  description?: string;
}

export interface RetryDefinition {
  /** Attempts in total, the first included. */
  attempts: number;
  initialIntervalMs: number;
  backoff: number;
  maxIntervalMs: number;
}

interface StepBase<K extends string> {
  kind: K;
  id: string;
  name?: string;
  description?: string;
  /** Bare CEL; the step is skipped when it is false. */
  if?: string;
  /** The step's time limit (wait: the overall deadline; approve: when `default` applies). */
  timeoutMs?: DurationValue;
  retry?: RetryDefinition;
  /** Steps that undo this one, in the order written; run only if this step completed. */
  compensate: StepDefinition[];
  continueOnError: boolean;
  /** Set only when written (or inherited from a parallel/foreach): absent = the run's policy. */
  onFailure?: OnFailurePolicy;
}

/** What a failed step does: compensate and fail the run, or hold the run for an operator. */
export type OnFailurePolicy = 'rollback' | 'hold';

export interface CallStepDefinition extends StepBase<'call'> {
  action: ActionName;
  actionKind: OperationKind;
  /** The flat action input (path params + body/query fields); values may hold templates. */
  with: Record<string, JsonValue>;
  /** Creates only: take over an existing resource of the same name on the first attempt. */
  adopt: boolean;
}

export interface WaitStepDefinition extends StepBase<'wait'> {
  action: ActionName;
  with: Record<string, JsonValue>;
  /** Bare CEL over `result` and the run's variables; absent = the first successful answer. */
  until?: string;
  failIf?: string;
  untilDeleted: boolean;
  intervalMs: number;
  maxIntervalMs: number;
  /** Always set for waits (default 30 minutes). */
  timeoutMs: DurationValue;
}

export interface SleepStepDefinition extends StepBase<'sleep'> {
  durationMs: DurationValue;
}

export interface ApproveStepDefinition extends StepBase<'approve'> {
  /** May hold templates. */
  message: string;
  /** The outcome when `timeoutMs` passes without an answer. */
  default: 'approve' | 'reject';
  /**
   * Who may decide (names and `group:NAME`); absent: anyone, unsigned, as before. When present,
   * each decision is verified by the `approval.verify` activity and needs format version 2.
   */
  approvers?: string[];
  /** Different approvers that must approve (only with `approvers`). */
  minApprovals?: number;
  /** False: the run's starter may not approve (only with `approvers`). */
  allowSelfApproval?: boolean;
}

export interface AssertStepDefinition extends StepBase<'assert'> {
  /** Bare CEL that must be true. */
  condition: string;
  /** May hold templates. */
  message?: string;
}

export interface ParallelBranchDefinition {
  id: string;
  name?: string;
  steps: StepDefinition[];
}

export interface ParallelStepDefinition extends StepBase<'parallel'> {
  branches: ParallelBranchDefinition[];
}

export interface ForeachStepDefinition extends StepBase<'foreach'> {
  /** Bare CEL giving a list. */
  items: string;
  /** The loop variable's name in expressions. */
  as: string;
  /** A number, or a `${{ … }}` resolved at run time with `resolveCount`. */
  concurrency: number | string;
  /**
   * The error budget, as written: a count or a percentage string (`"10%"`); workflows/foreach-budget.ts.
   * Absent: the first failed item stops new starts and is the foreach's failure (as ever).
   */
  maxErrors?: number | string;
  /** What the items in flight do once the budget is spent (absent: finish). */
  onMaxErrors?: 'finish' | 'cancel';
  /** Start `start` items at a time and widen by `factor` while items succeed. */
  ramp?: ForeachRampDefinition;
  /** Items start in waves of this many; a wave starts once every item of the one before it ended. */
  waves?: number;
  /**
   * Written as `foreach: { targets: … }`: the selector as written, for plans and reports. The run
   * does not read it: the list step before the foreach and `items` (a filter over its output) are
   * what run (dsl/targets-filter.ts).
   */
  targets?: TargetsDefinition;
  steps: StepDefinition[];
}

/** A foreach's service selector, as written (values may hold templates); lists for one-or-more fields. */
export interface TargetsDefinition {
  /** The id of the generated `service.list` step right before the foreach. */
  listStepId: string;
  project_id: string;
  name?: string[];
  environment?: string[];
  status?: string[];
  region?: string[];
  forkOf?: string;
  replicaOf?: string;
  role?: ('primary' | 'fork' | 'replica')[];
  /** A boolean, or a `${{ … }}` giving one. */
  hasReadReplicas?: boolean | string;
}

export interface ForeachRampDefinition {
  start: number;
  factor: number;
}

export interface RunbookStepDefinition extends StepBase<'runbook'> {
  /** The child file as written, for display. */
  path: string;
  /** The child's inputs; values may hold templates. */
  with: Record<string, JsonValue>;
  /** The child's normalised definition. */
  runbook: RunbookDefinition;
}

export interface FailStepDefinition extends StepBase<'fail'> {
  /** May hold templates. */
  message: string;
}

export interface WatchStepDefinition extends StepBase<'watch'> {
  action: ActionName;
  with: Record<string, JsonValue>;
  /** Bare CEL over `result` and the run's variables: the watch fails as soon as it is true. */
  failIf: string;
  /** How long the watch lasts; it succeeds when this passes without `failIf` holding. */
  forMs: number;
  /** The pause between reads. */
  everyMs: number;
}

export type StepDefinition =
  | CallStepDefinition
  | WaitStepDefinition
  | SleepStepDefinition
  | ApproveStepDefinition
  | AssertStepDefinition
  | ParallelStepDefinition
  | ForeachStepDefinition
  | RunbookStepDefinition
  | FailStepDefinition
  | WatchStepDefinition;

/**
 * The newest version of this normalised format, the one the interpreter reads up to. It refuses a
 * definition whose format it does not know (a newer CLI or schedule than the worker); absent means
 * 1 (normalised before the field). Raise it when the shape changes incompatibly, and keep the
 * interpreter reading the older ones.
 *
 * 2: a foreach may carry an error budget (`maxErrors`, `onMaxErrors`) or a `ramp`, an approve step
 * `approvers`, the runbook `notify` targets. A worker of format 1 would ignore them (run the whole
 * fleet at full concurrency, tell nobody), so a definition that uses them is format 2 and such a
 * worker refuses it; every other definition stays format 1 and runs on either (see
 * `definitionFormatVersion` in normalise.ts). A foreach over `targets` is format 2 as well: it
 * carries the selector (`targets`) and a generated list step, which a format-1 reader does not
 * know about.
 *
 * 3: a `watch` step. A worker of format 2 does not know the kind, so a definition holding one is
 * format 3; every other definition keeps the oldest format that holds it.
 *
 * 4: a foreach may start its items in `waves`. A worker of format 3 would ignore them and start
 * the next items while a wave is still running, so a definition with waves is format 4.
 */
export const DEFINITION_FORMAT_VERSION = 4;

export interface RunbookDefinition {
  formatVersion?: number;
  apiVersion: 'tideline/v1';
  name: string;
  description: string;
  inputs: Record<string, InputDefinition>;
  steps: StepDefinition[];
  outputs: Record<string, OutputDefinition>;
  /** Absent = rollback (every definition normalised before the field). */
  onFailure?: OnFailurePolicy;
  /** How long a held run waits for an operator; absent = DEFAULT_HOLD_TIMEOUT_MS. */
  holdTimeoutMs?: number;
  /** Notification targets the runbook names (format 2); the worker's own targets come on top. */
  notify?: NotifySubscription[];
}

export const DEFAULT_HOLD_TIMEOUT_MS = 24 * 60 * 60_000;
export const DEFAULT_WAIT_TIMEOUT_MS = 30 * 60_000;
export const DEFAULT_WAIT_INTERVAL_MS = 1_000;
export const DEFAULT_WAIT_MAX_INTERVAL_MS = 15_000;
export const DEFAULT_WATCH_EVERY_MS = 15_000;
export const DEFAULT_RETRY_INITIAL_INTERVAL_MS = 1_000;
export const DEFAULT_RETRY_BACKOFF = 2;
export const DEFAULT_RETRY_MAX_INTERVAL_MS = 60_000;
export const DEFAULT_FOREACH_VARIABLE = 'item';
export const DEFAULT_FOREACH_CONCURRENCY = 1;
export const DEFAULT_RAMP_START = 1;
export const DEFAULT_RAMP_FACTOR = 2;
