// The `hold.verify` activity: an operator's hold action is checked like a start by the person
// acting. First its signature (approval-verify.ts, verifyHoldAction); then, for runs that ask
// (`judge`), the worker's policies as configured now, for that person and their groups, over the
// run's inputs as the action leaves them (start rules) and each change it leads to that is known
// now (step rules, each target read from the API as it is now). A deny, or a closed window whose
// rule refuses, refuses the action before anything changes; an approval or a window to wait for
// is left to the step, which is checked again for everyone who acted on the run.
import type { VerifiedStarter } from '../contract/admission-messages';
import type { VerifyHoldActionInput, VerifyHoldActionResult } from '../contract/approval-messages';
import type { HoldJudgeRequest, HoldPolicyRefusal } from '../contract/hold-judgement';
import type { PolicyContext } from '../dsl/policy-schema';
import { evaluatePolicies, hasStepRules, type CompiledGovernance } from '../dsl/policies';
import { groupsOf } from './admission';
import { verifyHoldAction } from './approval-verify';
import { systemClock, type ApprovalSettings, type Clock, type CloudClientResolver } from './deps';
import { policyRecord, serviceTarget, starterContext } from './policy-check';

/** The person acting as policies see a starter: groups only for a verified (signed) action. */
export function holdActor(settings: ApprovalSettings, by: string | null, verified: boolean): VerifiedStarter {
  if (by === null) return { by: null, verified: false, reason: 'the action names no one', groups: [] };
  return verified
    ? { by, verified: true, groups: groupsOf(settings, by) }
    : { by, verified: false, reason: 'the action was not signed', groups: [] };
}

/**
 * The policies' verdict on a hold action for `actor`; `targets` holds each change's target as
 * read now (same order as `request.changes`). Undefined: nothing refuses it.
 */
export function judgeHoldAction(
  governance: CompiledGovernance,
  actor: VerifiedStarter,
  request: HoldJudgeRequest,
  targets: readonly PolicyContext['target'][],
  now: number,
): HoldPolicyRefusal | undefined {
  const base = {
    runbook: { name: request.runbook, hash: request.definitionHash },
    starter: starterContext(actor),
    inputs: request.inputs,
  };
  const contexts: { stepKey: string | null; context: PolicyContext }[] = [
    { stepKey: null, context: { ...base, step: null, target: null } },
    ...request.changes.map((change, index) => ({
      stepKey: change.stepKey,
      context: {
        ...base,
        step: { key: change.stepKey, action: change.action, with: change.with },
        target: targets[index] ?? null,
      },
    })),
  ];
  const who = actor.by ?? 'an unnamed operator';
  for (const { stepKey, context } of contexts) {
    const verdict = evaluatePolicies(governance, context, now);
    const where = stepKey === null ? 'the run’s inputs' : `step ${stepKey}`;
    const policies = verdict.decisions.map((decision) => policyRecord(decision, stepKey, now));
    const deny = verdict.decisions.find((decision) => decision.effect === 'deny');
    if (deny !== undefined)
      return {
        code: 'POLICY_DENIED',
        reason: `policy ${deny.rule} (judged for ${who}, ${where}): ${deny.message}`,
        policies,
      };
    if (verdict.refusedByWindow) {
      const closed = verdict.decisions.find((d) => d.effect === 'window' && !d.open);
      return {
        code: 'CHANGE_WINDOW_CLOSED',
        reason: `policy ${closed?.rule ?? '?'} (judged for ${who}, ${where}): ${closed?.message ?? 'a change window is closed'}`,
        policies,
      };
    }
  }
  return undefined;
}

export function createVerifyHoldActionActivity(
  settings: ApprovalSettings | undefined,
  governance: CompiledGovernance | undefined,
  clients: CloudClientResolver,
  clock: Clock = systemClock,
  policyClock: Clock = clock,
) {
  const configured = settings ?? { keys: new Map(), groups: new Map() };
  return async (input: VerifyHoldActionInput): Promise<VerifyHoldActionResult> => {
    const verdict = verifyHoldAction(configured, input, clock.now());
    if (!verdict.accepted || input.judge === undefined) return verdict;
    const actor = holdActor(configured, verdict.by, verdict.verified);
    const checksSteps = governance !== undefined && hasStepRules(governance);
    if (governance !== undefined) {
      const targets = await Promise.all(
        input.judge.changes.map((change) => serviceTarget(clients, change.with)),
      );
      const refusal = judgeHoldAction(governance, actor, input.judge, targets, policyClock.now());
      if (refusal !== undefined) return { accepted: false, ...refusal };
    }
    return { ...verdict, actor, checksSteps };
  };
}
