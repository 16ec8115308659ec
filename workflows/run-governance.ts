// The worker's authority over a run, inside the workflow: the admission `run.admit` answered at
// the start (catalogue, verified starter, policies) or the parent's, the plans approvals with
// approvers were given for, and the policy records of the run's steps. Only runs that took the
// runAdmission patch (or whose parent did) have one; others behave as their release did.
// Workflow code.
import { proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { TidelineActivities } from '../activities';
import { ADMIT_RUN_ACTIVITY, type Admission } from '../contract/admission-messages';
import type { ApprovalPlan } from '../contract/approval-messages';
import type { PolicyRecord } from '../contract/policy-messages';
import type { RunbookWorkflowInput } from '../contract/run-messages';
import type { RunbookDefinition, StepDefinition } from '../dsl/definition';
import type { JsonValue } from '../dsl/expressions';
import { approvalPlan, samePlan } from './approval-plan';
import type { Scope } from './interpreter';
import { celVariables } from './interpreter';
import { PATCHES } from './patches';
import { hasPatch } from './release-gate';

const admitActivity = proxyLocalActivities<TidelineActivities>({
  startToCloseTimeout: '30s',
  retry: { maximumAttempts: 5, initialInterval: '1s' },
})[ADMIT_RUN_ACTIVITY];

type ApproveStep = Extract<StepDefinition, { kind: 'approve' }>;

interface ApprovedPlan {
  step: ApproveStep;
  key: string;
  scope: Scope;
  plan: ApprovalPlan;
}

export class RunGovernance {
  /** Approvals with approvers that were granted, with the plan they were granted for. */
  private readonly approved = new Map<string, ApprovedPlan>();
  /** What the policies said about the run's steps, oldest first (the start's are in `admission`). */
  readonly policyRecords: PolicyRecord[] = [];
  onChange: () => void = () => undefined;

  constructor(
    readonly admission: Admission,
    private readonly definition: Pick<RunbookDefinition, 'steps'>,
    private readonly secretValues: ReadonlySet<string>,
    private readonly withChanges: (stepKey: string) => Record<string, JsonValue> | undefined,
  ) {}

  /**
   * The admission of a top-level run (asked of the worker) or of a child (its parent's); undefined
   * for runs started before the worker was asked.
   */
  static async admit(
    input: RunbookWorkflowInput,
    boundInputs: Record<string, JsonValue>,
  ): Promise<Admission | undefined> {
    const info = workflowInfo();
    if (info.parent !== undefined) return input.admission;
    if (!hasPatch(PATCHES.runAdmission)) return undefined;
    return admitActivity({
      workflowId: info.workflowId,
      runStartedAt: info.startTime.getTime(),
      definition: input.definition,
      inputs: boundInputs,
      ...(input.startedBy !== undefined && { startedBy: input.startedBy }),
    });
  }

  /** The plan approval step `step` guards, as the run knows it now. */
  planFor(step: ApproveStep, scope: Scope): ApprovalPlan {
    return approvalPlan(
      this.definition,
      step.id,
      this.admission.definitionHash,
      celVariables(scope),
      this.secretValues,
      this.withChanges,
    );
  }

  noteApproved(step: ApproveStep, key: string, scope: Scope, plan: ApprovalPlan): void {
    this.approved.set(key, { step, key, scope, plan });
  }

  /**
   * The granted approvals whose plan is no longer what was approved (an operator retried a step
   * with other inputs or `with`): each must be asked again before the run goes on.
   */
  outdatedApprovals(): { step: ApproveStep; key: string; scope: Scope }[] {
    return [...this.approved.values()].filter(
      (entry) => !samePlan(entry.plan, this.planFor(entry.step, entry.scope)),
    );
  }

  notePolicies(records: readonly PolicyRecord[]): void {
    if (records.length === 0) return;
    this.policyRecords.push(...records);
    this.onChange();
  }
}
