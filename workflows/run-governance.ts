// The worker's authority over a run, inside the workflow: the admission `run.admit` answered at
// the start (catalogue, verified starter, policies) or the parent's, the plans approvals with
// approvers were given for, and the policy records of the run's steps. Only runs that took the
// runAdmission patch (or whose parent did) have one; others behave as their release did.
// Workflow code.
import { proxyLocalActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { TidelineActivities } from '../activities';
import { ADMIT_RUN_ACTIVITY, type Admission, type VerifiedStarter } from '../contract/admission-messages';
import type { ApprovalPlan } from '../contract/approval-messages';
import type { NotifyPlanResult } from '../contract/notification-messages';
import {
  CHECK_STEP_POLICY_ACTIVITY,
  type CheckStepPolicyInput,
  type PolicyRecord,
  type StepPolicyVerdict,
} from '../contract/policy-messages';
import { strictest } from './policy-verdicts';
import type { RunbookWorkflowInput } from '../contract/run-messages';
import type { RunbookDefinition, StepDefinition } from '../dsl/definition';
import type { JsonValue } from '../dsl/expressions';
import { approvalPlan, decidedWith, samePlan, startApprovalId } from './approval-plan';
import { StepFailed } from './step-failure';
import type { Scope } from './interpreter';
import { celVariables } from './interpreter';
import { PATCHES } from '../contract/patches';
import { hasPatch } from './release-gate';

const admitActivity = proxyLocalActivities<TidelineActivities>({
  startToCloseTimeout: '30s',
  retry: { maximumAttempts: 5, initialInterval: '1s' },
})[ADMIT_RUN_ACTIVITY];

const checkPolicy = proxyLocalActivities<TidelineActivities>({
  startToCloseTimeout: '1m',
  retry: { maximumAttempts: 5, initialInterval: '1s' },
})[CHECK_STEP_POLICY_ACTIVITY];

/** What the worker said at the start of a run. */
export interface AdmittedRun {
  /** The verdict, without the notification plan (what the run's children are given). */
  admission: Admission;
  /**
   * Which targets hear the run, as the admission said (admissionPlansNotifications); null: none
   * does (or a child run, which never notifies); undefined: a run started before the admission
   * said it, which asks `notify.plan`.
   */
  notifications: NotifyPlanResult | null | undefined;
}

type ApproveStep = Extract<StepDefinition, { kind: 'approve' }>;
type ChangeStep = Extract<StepDefinition, { kind: 'call' }>;

/**
 * Asks for an approval the way an approve step does (the interpreter runs it), with the scope of
 * the step that asks unless `scope` names the one the approval was first asked in.
 */
export type AskApproval = (step: ApproveStep, key: string, scope?: Scope) => Promise<void>;

/** How long a policy's approval waits before it counts as rejected. */
const POLICY_APPROVAL_TIMEOUT_MS = 24 * 3_600_000;

/** The approval a policy asks for: a signed quorum of its group, never the starter's. */
function policyApproval(id: string, message: string, need: { group: string; count: number }): ApproveStep {
  return {
    kind: 'approve',
    id,
    message,
    default: 'reject',
    approvers: [`group:${need.group}`],
    minApprovals: need.count,
    allowSelfApproval: false,
    timeoutMs: POLICY_APPROVAL_TIMEOUT_MS,
    compensate: [],
    continueOnError: false,
  };
}

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
    private readonly runbook: string,
    readonly admission: Admission,
    private readonly definition: Pick<RunbookDefinition, 'steps'>,
    /** The names of the run's secret inputs: what plans shown to approvers mask. */
    readonly secretInputs: ReadonlySet<string>,
    private readonly withChanges: (stepKey: string) => Record<string, JsonValue> | undefined,
  ) {}

  /**
   * The admission of a top-level run (asked of the worker) or of a child (its parent's); undefined
   * for runs started before the worker was asked.
   */
  static async admit(
    input: RunbookWorkflowInput,
    boundInputs: Record<string, JsonValue>,
  ): Promise<AdmittedRun | undefined> {
    const info = workflowInfo();
    if (info.parent !== undefined)
      return input.admission === undefined ? undefined : { admission: input.admission, notifications: null };
    if (!hasPatch(PATCHES.runAdmission)) return undefined;
    // Asked now, before the local activity, not after it: a query answered while a local activity
    // finishes can make replay resume one workflow task earlier, and a patch asked in another
    // task than it was recorded in fails the replay (patches.ts, concurrentCallsAsTasks).
    hasPatch(PATCHES.notifications);
    const plansNotifications = hasPatch(PATCHES.admissionPlansNotifications);
    const { notifications, ...admission } = await admitActivity({
      workflowId: info.workflowId,
      runId: info.runId,
      taskQueue: info.taskQueue,
      runStartedAt: info.startTime.getTime(),
      definition: input.definition,
      inputs: boundInputs,
      givenInputs: input.inputs,
      ...(input.startedBy !== undefined && { startedBy: input.startedBy }),
    });
    return { admission, notifications: plansNotifications ? (notifications ?? null) : undefined };
  }

  /** The plan approval step `step` guards, as the run knows it now. */
  planFor(step: ApproveStep, scope: Scope): ApprovalPlan {
    return approvalPlan(
      this.definition,
      step.id,
      this.admission.definitionHash,
      celVariables(scope),
      this.secretInputs,
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

  /**
   * The policy approvals granted in this run: a step rule's by rule and target (asked once per rule
   * and target), a start rule's by its key; each with the approval that was asked.
   */
  private readonly granted = new Map<string, { step: ApproveStep; key: string }>();

  /**
   * Whether the decisions counted for approval `key` were signed for another run of this workflow
   * id: the run was reset to a point after they were given (the run sets it; the ledger knows).
   */
  signedForAnotherRun: (key: string) => boolean = () => false;

  /**
   * Before the first step of a top-level run: the signed quorum each start rule asks for (a
   * `require-approval` rule evaluated at the start, or a closed window's override), as
   * beforeChange asks for a step rule's. Only an admission that lists them asks: a run admitted
   * before the worker listed them (its recorded answer has no `startApprovals`) replays as it ran,
   * without a patch marker in every run. True when a window's override was granted.
   */
  async beforeFirstStep(ask: AskApproval): Promise<boolean> {
    let overridden = false;
    for (const need of this.admission.startApprovals ?? []) {
      const key = startApprovalId(need.rule);
      const step = policyApproval(
        key,
        `policy ${need.rule}${need.override ? ' (override of a closed change window)' : ''}: may this run of ${this.runbook} start?`,
        need,
      );
      await ask(step, key);
      this.granted.set(key, { step, key });
      if (need.override) overridden = true;
    }
    return overridden;
  }

  /**
   * The approvals counted in this run whose decisions were signed for the run it was reset from:
   * a decision binds the run it was signed for, so they are asked again before the next guarded
   * change. The changes the earlier run made before the reset point replay as they ran: only a
   * change reached after it takes the patch (its marker records where the question was asked),
   * so this is asked only where some decision is inherited, which no run that was never reset has.
   */
  async askInheritedAgain(ask: AskApproval): Promise<void> {
    const inherited: { step: ApproveStep; key: string; scope?: Scope }[] = [
      ...[...this.approved.values()].filter((entry) => this.signedForAnotherRun(entry.key)),
      ...[...this.granted.values()].filter((entry) => this.signedForAnotherRun(entry.key)),
    ];
    if (inherited.length === 0 || !hasPatch(PATCHES.resetAsksAgain)) return;
    for (const entry of inherited) await ask(entry.step, entry.key, entry.scope);
  }
  /** A change window the run waits for now (progress; status shows it). */
  windowWait: { stepKey: string; rule: string; calendar: string; until: number } | undefined;

  /**
   * Before a changing step: the worker's policies for it, as the API shows its target now. A deny
   * or a refusing closed window fails the step; an approval a rule asks for (or a freeze's
   * override) is asked as a signed quorum; a closed window the rule waits for is waited out on a
   * named timer, and the step is checked again when it opens.
   */
  async beforeChange(step: ChangeStep, key: string, scope: Scope, ask: AskApproval): Promise<void> {
    await this.askInheritedAgain(ask);
    if (!this.admission.checksSteps && !this.actorsChecksSteps) return;
    for (;;) {
      const vars = celVariables(scope);
      const verdict = await this.checkForEachResponsible({
        runbook: this.runbook,
        definitionHash: this.admission.definitionHash,
        starter: this.admission.starter,
        // As resolved, whatever any secret's value: masking is for what is shown, never for what is
        // decided (a local activity's input is not kept in history).
        inputs: scope.inputs,
        stepKey: key,
        action: step.action,
        with: decidedWith(step.with, vars, this.withChanges(key)),
      });
      this.notePolicies(verdict.records);
      const first = (effect: string) => verdict.records.find((r) => r.effect === effect && r.open !== true);
      if (verdict.denied) {
        const rule = first('deny');
        throw new StepFailed(
          key,
          'POLICY_DENIED',
          `policy ${rule?.rule ?? '?'}: ${rule?.message ?? 'denied'}`,
        );
      }
      if (verdict.refusedByWindow) {
        const rule = first('window');
        throw new StepFailed(
          key,
          'CHANGE_WINDOW_CLOSED',
          `policy ${rule?.rule ?? '?'}: ${rule?.message ?? 'the change window is closed'}`,
        );
      }
      const target = JSON.stringify(decidedWith({ id: step.with.service_id ?? null }, vars, undefined).id);
      let overridden = false;
      for (const need of verdict.approvals) {
        const grant = `${need.rule}/${target}`;
        if (!this.granted.has(grant)) {
          const approval = policyApproval(
            `${step.id}.policy.${need.rule}`,
            `policy ${need.rule}${need.override ? ' (override of a closed change window)' : ''}: may ${key} (${step.action}) go ahead?`,
            need,
          );
          const approvalKey = `${key}.policy.${need.rule}`;
          await ask(approval, approvalKey);
          this.granted.set(grant, { step: approval, key: approvalKey });
        }
        if (need.override) overridden = true;
      }
      if (verdict.waitUntil === null || verdict.waitMs === null || overridden) return;
      const rule = first('window');
      this.windowWait = {
        stepKey: key,
        rule: rule?.rule ?? '',
        calendar: rule?.calendar ?? '',
        until: verdict.waitUntil,
      };
      this.onChange();
      try {
        // As long as the worker's clock says (the policies are evaluated by it), at least 1 ms.
        await sleep(Math.max(1, verdict.waitMs), {
          summary: `change window ${rule?.calendar ?? ''} closed (policy ${rule?.rule ?? ''}): ${key} waits until it opens`,
        });
      } finally {
        this.windowWait = undefined;
        this.onChange();
      }
    }
  }

  /**
   * The people who acted on the held run (holdActionsJudged): each answers for the run's later
   * changes like its starter, judged by the worker's policies as they are when the change comes.
   */
  private actorsNoted: VerifiedStarter[] | undefined;
  private get actors(): VerifiedStarter[] {
    return (this.actorsNoted ??= [...(this.admission.actors ?? [])]);
  }
  /** A hold action's verdict said the worker has step rules now (the admission may not have). */
  private actorsChecksSteps = false;

  /** What a child run or a batch is given: the admission, with who acted on this run so far. */
  forChildren(): Admission {
    if (this.actors.length === 0 && !this.actorsChecksSteps) return this.admission;
    return {
      ...this.admission,
      checksSteps: this.admission.checksSteps || this.actorsChecksSteps,
      actors: [...this.actors],
    };
  }

  noteActor(actor: VerifiedStarter, checksSteps: boolean, answersForChanges: boolean): void {
    if (checksSteps) this.actorsChecksSteps = true;
    const known = [this.admission.starter, ...this.actors].some(
      (person) => person.by === actor.by && person.verified === actor.verified,
    );
    if (answersForChanges && !known) this.actors.push(actor);
  }

  /** The verified names that answer for the run's changes: its starter and who acted on it. */
  responsibleNames(): string[] {
    return [this.admission.starter, ...this.actors].flatMap((person) =>
      person.verified && person.by !== null ? [person.by] : [],
    );
  }

  /** `policy.check` for the starter, then for each actor; one verdict, the strictest. */
  private async checkForEachResponsible(input: CheckStepPolicyInput): Promise<StepPolicyVerdict> {
    const verdicts = [await checkPolicy(input)];
    for (const actor of this.actors) verdicts.push(await checkPolicy({ ...input, starter: actor }));
    return strictest(verdicts);
  }

  notePolicies(records: readonly PolicyRecord[]): void {
    if (records.length === 0) return;
    this.policyRecords.push(...records);
    this.onChange();
  }
}
