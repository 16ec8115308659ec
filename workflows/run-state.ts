// The run's bookkeeping: one record per step execution, the pending approval, and the progress
// snapshot the query answers. Workflow code: no I/O, time from the workflow clock.
import type { RunbookDefinition, StepDefinition } from '../dsl/definition';
import { definitionRuntime } from '../dsl/step-kinds/runtime-table';
import type {
  ApprovalDecision,
  ApprovalOutcome,
  PendingApproval,
  RunFailure,
  RunProgress,
  RunStatus,
  StepRecord,
  StepResource,
  StepStatus,
} from '../contract/run-messages';
import { lockWaits } from './locks';
import { addResource } from './step-resources';
import type { Holds } from './holds';
import type { ApprovalLedger } from './approval-ledger';
import type { RunGovernance } from './run-governance';
import type { NotificationSummary } from '../contract/notification-messages';

interface ApprovalWaiter extends PendingApproval {
  decision?: ApprovalOutcome;
}

export class RunState {
  private readonly records: StepRecord[] = [];
  private readonly byKey = new Map<string, StepRecord>();
  private readonly approvals = new Map<string, ApprovalWaiter>();
  status: RunStatus = 'running';
  failure: RunFailure | undefined;
  endedAt: number | undefined;
  /** Held steps and operator actions; absent where nothing can hold (foreach batch children). */
  holds: Holds | undefined;
  /** Reports the run's locks into the progress (set by the workflow). */
  lockStatus: () => { waitingFor?: string | undefined; held: string[] } = () => ({ held: [] });
  /** Called when an approval opens or closes (the run's visibility follows; run-visibility.ts). */
  onChange: () => void = () => undefined;
  /** Called with the resources a step acted on or created. */
  onResources: (resources: readonly StepResource[]) => void = () => undefined;
  /** Values of secret inputs: never kept as a resource id (step-resources.ts). */
  secretValues: ReadonlySet<string> = new Set();
  /**
   * The runbook's steps and outputs, so a fleet-sized foreach knows what the rest of the runbook
   * reads of its output (foreach-batch.ts); absent in a batch child, which keeps everything.
   */
  definition: Pick<RunbookDefinition, 'steps' | 'outputs'> | undefined;
  /** Decisions on approval steps with approvers (the progress's audit trail). */
  ledger: ApprovalLedger | undefined;
  /** The worker's admission and policies (runs it admitted; absent for earlier runs). */
  governance: RunGovernance | undefined;
  /** Deliveries to the run's notification targets; absent when no target hears the run. */
  notifications: NotificationSummary | undefined;

  constructor(
    readonly runbook: string,
    readonly startedAt: number,
  ) {}

  record(key: string, step: StepDefinition, compensates?: string): StepRecord {
    const record: StepRecord = { key, id: step.id, kind: step.kind, status: 'pending' };
    if (step.name !== undefined) record.name = step.name;
    if (compensates !== undefined) record.compensates = compensates;
    const action = definitionRuntime(step).actionOf(step);
    if (action !== undefined) record.action = action;
    this.records.push(record);
    this.byKey.set(key, record);
    return record;
  }

  /** What a wait step's record says it polls for (also set on batch records the run merges). */
  static waitingFor(step: StepDefinition): string | undefined {
    if (step.kind !== 'wait') return undefined;
    return `${step.action}: ${step.untilDeleted ? 'deleted' : (step.until ?? 'an answer')}`;
  }

  get(key: string): StepRecord | undefined {
    return this.byKey.get(key);
  }

  mark(record: StepRecord, status: StepStatus, error?: { type: string; message: string }): void {
    record.status = status;
    if (status === 'running') record.startedAt = Date.now();
    else if (status !== 'pending' && status !== 'compensating') record.endedAt = Date.now();
    if (error !== undefined) record.error = error;
  }

  /** Adds resources to a step's record and reports them. */
  noteResources(record: StepRecord, resources: readonly StepResource[]): void {
    if (resources.length === 0) return;
    const list = (record.resources ??= []);
    for (const resource of resources) addResource(list, { ...resource });
    this.onResources(resources);
  }

  openApproval(approval: PendingApproval): ApprovalWaiter {
    const waiter: ApprovalWaiter = { ...approval };
    this.approvals.set(approval.stepKey, waiter);
    this.onChange();
    return waiter;
  }

  closeApproval(stepKey: string): void {
    this.approvals.delete(stepKey);
    this.onChange();
  }

  /** The first approval still waiting for an answer. */
  pendingApproval(): PendingApproval | undefined {
    return this.pendingApprovals()[0];
  }

  /** Every approval still waiting for an answer (several in parallel branches), oldest first. */
  pendingApprovals(): PendingApproval[] {
    return [...this.approvals.values()]
      .filter((a) => a.decision === undefined)
      .map(({ decision: _decision, ...approval }) => {
        if (approval.approvedBy !== undefined) approval.approvedBy = [...approval.approvedBy];
        return approval;
      });
  }

  /** The approval a decision is for; throws (rejecting the update) when there is none. */
  approvalFor(decision: ApprovalDecision): ApprovalWaiter {
    const open = [...this.approvals.values()].filter((a) => a.decision === undefined);
    if (open.length === 0) throw new Error('no approval is pending in this run');
    if (decision.step === undefined) {
      if (open.length > 1) {
        throw new Error(
          `several approvals are pending (${open.map((a) => a.stepKey).join(', ')}); name one with --step`,
        );
      }
      return open[0]!;
    }
    const match = open.find((a) => a.stepKey === decision.step || a.stepKey.endsWith(`.${decision.step}`));
    if (match === undefined) {
      throw new Error(
        `no approval is pending at step "${decision.step}"; pending: ${open.map((a) => a.stepKey).join(', ')}`,
      );
    }
    return match;
  }

  progress(): RunProgress {
    const progress: RunProgress = {
      runbook: this.runbook,
      status: this.status === 'running' && this.holds?.open === true ? 'held' : this.status,
      startedAt: this.startedAt,
      steps: this.records.map((r) => ({ ...r })),
    };
    const pending = this.pendingApproval();
    if (pending !== undefined) progress.pendingApproval = pending;
    const locks = this.lockStatus();
    if (locks.waitingFor !== undefined) progress.waitingForLock = locks.waitingFor;
    if (locks.held.length > 0) progress.locks = locks.held;
    const waits = lockWaits();
    if (waits.length > 0) progress.lockWaits = waits.map((wait) => ({ ...wait }));
    if (this.failure !== undefined) progress.failure = this.failure;
    if (this.endedAt !== undefined) progress.endedAt = this.endedAt;
    if (this.holds?.open === true) progress.held = this.holds.list();
    if (this.holds !== undefined && this.holds.actions.length > 0)
      progress.actions = this.holds.actions.map((a) => ({ ...a }));
    if (this.ledger !== undefined && this.ledger.entries.length > 0)
      progress.approvals = this.ledger.entries.map((entry) => ({ ...entry }));
    if (this.governance !== undefined) {
      progress.admission = this.governance.admission;
      if (this.governance.windowWait !== undefined) progress.windowWait = { ...this.governance.windowWait };
      if (this.governance.policyRecords.length > 0)
        progress.policies = this.governance.policyRecords.map((record) => ({ ...record }));
    }
    const notifications = this.notifications;
    if (notifications !== undefined && (notifications.delivered > 0 || notifications.failed.length > 0))
      progress.notifications = { delivered: notifications.delivered, failed: [...notifications.failed] };
    return progress;
  }
}
