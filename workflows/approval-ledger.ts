// Decisions for approval steps that name `approvers`: each is verified by the `approval.verify`
// activity (signature, registered key, group membership, freshness, the run's starter), then
// checked against what only the run knows (a nonce seen before, a second approval by the same
// person, the starter approving with `allowSelfApproval: false`), recorded in the audit trail,
// and counted only when accepted. Only definitions with `approvers` (format 2) get here, so runs
// of earlier releases never meet the activity. Workflow code.
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { TidelineActivities } from '../activities';
import {
  VERIFY_APPROVAL_ACTIVITY,
  type ApprovalAuditEntry,
  type ApprovalRefusalCode,
  type SignedStart,
  type StarterVerdict,
} from '../contract/approval-messages';
import type { ApprovalDecision, ApprovalOutcome, PendingApproval } from '../contract/run-messages';
import type { RunGovernance } from './run-governance';

/** What the ledger needs of an open approval (run-state.ts's waiter). */
export interface QuorumWaiter extends PendingApproval {
  approvers: string[];
  minApprovals: number;
  allowSelfApproval: boolean;
  approvedBy: string[];
  decision?: ApprovalOutcome;
}

const verifyApproval = proxyActivities<TidelineActivities>({
  startToCloseTimeout: '30s',
  retry: { maximumAttempts: 5, initialInterval: '1s' },
})[VERIFY_APPROVAL_ACTIVITY];

/** The open approval itself (not a copy: the step waits on its `decision`) when it names approvers. */
export function asQuorum(waiter: PendingApproval & { decision?: ApprovalOutcome }): QuorumWaiter | undefined {
  const complete =
    waiter.approvers !== undefined &&
    waiter.minApprovals !== undefined &&
    waiter.allowSelfApproval !== undefined &&
    waiter.approvedBy !== undefined;
  return complete ? (waiter as QuorumWaiter) : undefined;
}

export class ApprovalLedger {
  /** Every decision, oldest first (the progress query's `approvals`). */
  readonly entries: ApprovalAuditEntry[] = [];
  private readonly nonces = new Set<string>();
  /** The run ids the counted approvals of each approval (by key) were signed for, as they came. */
  private readonly signedFor = new Map<string, string[]>();
  /** The starter, once the activity has checked its signature. */
  private starter: StarterVerdict | undefined;

  constructor(
    private readonly ids: { workflowId: string; runId: string },
    private readonly startedBy: SignedStart | undefined,
    private readonly onChange: () => void,
    /** The worker's admission (runs it admitted): the starter as it verified it at the start. */
    private readonly governance: () => RunGovernance | undefined = () => undefined,
  ) {}

  /**
   * The starter's name for the self-approval rule. A run the worker admitted: only a verified
   * starter (an unverified start never reaches a step that refuses self-approval). Earlier runs:
   * verified at the first decision, or as claimed at the start.
   */
  private starterName(): string | undefined {
    const admitted = this.governance()?.admission.starter;
    if (admitted !== undefined) return admitted.verified ? (admitted.by ?? undefined) : undefined;
    return this.starter?.by ?? this.startedBy?.by;
  }

  async decide(waiter: QuorumWaiter, decision: ApprovalDecision): Promise<ApprovalOutcome> {
    const admitted = this.governance() !== undefined;
    const verdict = await verifyApproval({
      ...this.ids,
      stepKey: waiter.stepKey,
      approvers: waiter.approvers,
      approved: decision.approved,
      ...(decision.by !== undefined && { by: decision.by }),
      ...(decision.comment !== undefined && { comment: decision.comment }),
      ...(decision.signature !== undefined && { signature: decision.signature }),
      ...(waiter.plan !== undefined && { plan: waiter.plan }),
      ...(!admitted &&
        this.starter === undefined &&
        this.startedBy !== undefined && {
          starter: this.startedBy,
          runStartedAt: workflowInfo().startTime.getTime(),
        }),
    });
    if (verdict.starter !== undefined) this.starter ??= verdict.starter;
    const entry: ApprovalAuditEntry = {
      stepKey: waiter.stepKey,
      decision: decision.approved ? 'approve' : 'reject',
      by: decision.by ?? null,
      keyId: verdict.keyId ?? null,
      comment: decision.comment ?? null,
      at: Date.now(),
      signedAt: decision.signature?.signedAt ?? null,
      accepted: false,
    };
    const refuse = (code: ApprovalRefusalCode, reason: string): ApprovalOutcome => {
      this.record({ ...entry, code, reason });
      return {
        approved: decision.approved,
        by: decision.by ?? null,
        comment: decision.comment ?? null,
        timedOut: false,
        refused: { code, reason },
        count: { approvals: waiter.approvedBy.length, needed: waiter.minApprovals },
        approvedBy: [...waiter.approvedBy],
      };
    };
    // A nonce counts once per run, whether its decision was accepted or not.
    const nonce = decision.signature?.nonce;
    const replayed = nonce !== undefined && this.nonces.has(nonce);
    if (nonce !== undefined && verdict.accepted) this.nonces.add(nonce);
    if (!verdict.accepted) return refuse(verdict.code, verdict.reason);
    if (replayed) return refuse('APPROVAL_REPLAYED', 'this signature was already sent to this run');
    if (waiter.decision !== undefined)
      return refuse('APPROVAL_TOO_LATE', 'the step was decided while this decision was verified');
    if (decision.approved && waiter.approvedBy.includes(verdict.by))
      return refuse('APPROVAL_DUPLICATE', `${verdict.by} has already approved this step`);
    const starter = this.starterName();
    if (decision.approved && !waiter.allowSelfApproval && starter !== undefined && starter === verdict.by) {
      const how =
        admitted || this.starter?.verified === true
          ? 'started this run'
          : 'is named as the starter of this run';
      return refuse('APPROVAL_SELF', `${verdict.by} ${how}; this step does not allow self-approval`);
    }
    // Who changed the run with a hold action answers for its changes like the starter.
    const actedOn = this.governance()?.responsibleNames() ?? [];
    if (decision.approved && !waiter.allowSelfApproval && actedOn.includes(verdict.by))
      return refuse(
        'APPROVAL_SELF',
        `${verdict.by} acted on this run (a hold action); this step does not allow self-approval`,
      );
    this.record({ ...entry, accepted: true, via: verdict.via });
    if (decision.approved) {
      // A quorum starts afresh each time the approval is asked (again).
      const runIds = waiter.approvedBy.length === 0 ? [] : (this.signedFor.get(waiter.stepKey) ?? []);
      if (decision.signature !== undefined) runIds.push(decision.signature.runId);
      this.signedFor.set(waiter.stepKey, runIds);
      waiter.approvedBy.push(verdict.by);
    }
    const outcome: ApprovalOutcome = {
      approved: decision.approved,
      by: decision.approved ? waiter.approvedBy.join(', ') : verdict.by,
      comment: decision.comment ?? null,
      timedOut: false,
      count: { approvals: waiter.approvedBy.length, needed: waiter.minApprovals },
      approvedBy: [...waiter.approvedBy],
    };
    // Any listed approver's rejection rejects the step; approvals wait for the quorum.
    if (!decision.approved || waiter.approvedBy.length >= waiter.minApprovals) waiter.decision = outcome;
    return outcome;
  }

  /**
   * Whether an approval's counted decisions include one signed for another run of this workflow
   * id. The verifier accepts only decisions signed for the run they reach, so this holds only in a
   * run reset to a point after them: replaying the copied events counts them again, here, where
   * the run's id is the new one.
   */
  signedForAnotherRun(stepKey: string): boolean {
    return (this.signedFor.get(stepKey) ?? []).some((runId) => runId !== this.ids.runId);
  }

  private record(entry: ApprovalAuditEntry): void {
    this.entries.push(entry);
    this.onChange();
  }
}
