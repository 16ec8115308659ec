// The `approval.verify` activity: checks one decision sent to an approval step with `approvers`
// against the worker's configuration (registered public keys, groups), and the run's claimed
// starter. Pure given its input, the configuration and the clock, so a retry answers the same
// (the freshness check aside). It answers a verdict and never throws for a refusal: the verdict is
// the activity's result in the run's history. The workflow adds the checks that need the run's
// memory (nonces seen, who approved, the starter).
import type { KeyObject } from 'node:crypto';
import {
  agentApprovalRefusal,
  APPROVAL_MAX_AGE_MS,
  APPROVAL_MAX_SKEW_MS,
  approvalPayload,
  holdActionPayload,
  isAgentName,
  legacyStartPayload,
  scheduleStartPayload,
  START_SIGNATURE_TTL_MS,
  startPayload,
  type ApprovalRefusalCode,
  type SignedStart,
  type StarterVerdict,
  type VerifyApprovalInput,
  type VerifyApprovalResult,
  type VerifyHoldActionInput,
  type VerifyHoldActionResult,
} from '../contract/approval-messages';
import { keyId, parsePublicKey, verifyPayload } from './approval-keys';
import { systemClock, type ApprovalSettings, type Clock } from './deps';

export { VERIFY_APPROVAL_ACTIVITY } from '../contract/approval-messages';

/** The registered keys of a name, with their ids (unparseable entries were refused at start). */
function keysOf(settings: ApprovalSettings, name: string): { key: KeyObject; id: string }[] {
  return (settings.keys.get(name) ?? []).flatMap((text) => {
    const key = parsePublicKey(text);
    return key === undefined ? [] : [{ key, id: keyId(key) }];
  });
}

/** The approvers entry that lists `name` (itself or a group holding it). */
export function approverEntry(settings: ApprovalSettings, approvers: readonly string[], name: string) {
  return approvers.find((entry) =>
    entry.startsWith('group:')
      ? (settings.groups.get(entry.slice('group:'.length)) ?? []).includes(name)
      : entry === name,
  );
}

function freshness(signedAt: number, now: number): string | undefined {
  if (signedAt > now + APPROVAL_MAX_SKEW_MS) return 'it was signed in the future (check the signer’s clock)';
  if (now - signedAt > APPROVAL_MAX_AGE_MS)
    return `it was signed ${Math.round((now - signedAt) / 1000)}s ago; signatures are accepted for ${APPROVAL_MAX_AGE_MS / 1000}s`;
  return undefined;
}

/** Where a start is verified: the run, and for runs the worker admits, what a signature must cover. */
export interface StartContext {
  workflowId: string;
  /** When the run started (epoch ms): a start signature must have been good then. */
  runStartedAt?: number;
  /** Runs the worker admits: their task queue, definition (by hash) and inputs as given. */
  admitted?: { taskQueue: string; definitionHash: string; givenInputs: unknown };
}

/** The payload a run's own start signature must verify over, or why none can. */
function runStartPayload(
  context: StartContext,
  start: SignedStart,
  signature: NonNullable<SignedStart['signature']>,
): { payload: string } | { reason: string } {
  if (signature.workflowId !== context.workflowId) return { reason: 'the start was signed for another run' };
  const { admitted } = context;
  if (admitted === undefined) {
    // A run the worker did not admit started before admission: its start was signed the old way.
    const stale =
      context.runStartedAt === undefined ? undefined : freshness(signature.signedAt, context.runStartedAt);
    if (stale !== undefined) return { reason: `the start signature is not this start's: ${stale}` };
    return { payload: legacyStartPayload({ ...signature, workflowId: context.workflowId, by: start.by }) };
  }
  const { expiresAt, taskQueue } = signature;
  if (expiresAt === undefined || taskQueue === undefined)
    return {
      reason: 'the start was signed by an earlier tideline, which signs neither what it starts nor an expiry',
    };
  if (taskQueue !== admitted.taskQueue)
    return { reason: `the start was signed for task queue ${taskQueue}, not ${admitted.taskQueue}` };
  if (expiresAt - signature.signedAt > START_SIGNATURE_TTL_MS + APPROVAL_MAX_SKEW_MS)
    return {
      reason: `the start signature claims to be good for longer than ${START_SIGNATURE_TTL_MS / 1000}s`,
    };
  if (context.runStartedAt !== undefined) {
    if (context.runStartedAt > expiresAt + APPROVAL_MAX_SKEW_MS)
      return {
        reason: `the start signature expired ${Math.round((context.runStartedAt - expiresAt) / 1000)}s before this run started`,
      };
    if (signature.signedAt > context.runStartedAt + APPROVAL_MAX_SKEW_MS)
      return { reason: 'the start was signed after the run started (check the signer’s clock)' };
  }
  return {
    payload: startPayload({
      workflowId: context.workflowId,
      taskQueue,
      by: start.by,
      definitionHash: admitted.definitionHash,
      inputs: admitted.givenInputs,
      signedAt: signature.signedAt,
      expiresAt,
      nonce: signature.nonce,
    }),
  };
}

/** The payload a schedule's start signature must verify over, or why none can. */
function scheduleStartPayloadOf(
  context: StartContext,
  start: SignedStart,
  signature: NonNullable<SignedStart['signature']>,
): { payload: string } | { reason: string } {
  if (!context.workflowId.startsWith(`${signature.workflowId}-`))
    return { reason: `the schedule signature is for schedule ${signature.workflowId}, not this run` };
  const { admitted } = context;
  if (admitted === undefined)
    return { reason: 'a schedule signature is verified only by workers that admit runs' };
  const { scheduleCreatedAt, taskQueue } = signature;
  if (scheduleCreatedAt === undefined || taskQueue === undefined)
    return {
      reason:
        'the schedule was signed by an earlier tideline, which does not bind the schedule it signs (create it again)',
    };
  if (taskQueue !== admitted.taskQueue)
    return { reason: `the schedule was signed for task queue ${taskQueue}, not ${admitted.taskQueue}` };
  return {
    payload: scheduleStartPayload({
      scheduleId: signature.workflowId,
      scheduleCreatedAt,
      taskQueue,
      by: start.by,
      definitionHash: admitted.definitionHash,
      inputs: admitted.givenInputs,
      signedAt: signature.signedAt,
      nonce: signature.nonce,
    }),
  };
}

/**
 * Whether a start's signature verifies with a key registered for its `by` over what the run is.
 * Whether it was used before (a run's own start) or its schedule still exists (a schedule's) is
 * the admission's to ask (activities/start-once.ts).
 */
export function verifyStarter(
  settings: ApprovalSettings,
  context: StartContext,
  start: SignedStart,
): StarterVerdict {
  const { signature } = start;
  if (signature === undefined) return { by: start.by, verified: false, reason: 'the start was not signed' };
  const expected =
    signature.schedule === true
      ? scheduleStartPayloadOf(context, start, signature)
      : runStartPayload(context, start, signature);
  if ('reason' in expected) return { by: start.by, verified: false, reason: expected.reason };
  const ok = keysOf(settings, start.by).some(({ key }) =>
    verifyPayload(expected.payload, signature.value, key),
  );
  if (ok) return { by: start.by, verified: true };
  return {
    by: start.by,
    verified: false,
    reason:
      signature.schedule === true
        ? 'the schedule signature does not verify (the definition, inputs or task queue differ from what was signed)'
        : 'the start signature does not verify (the definition, inputs or task queue differ from what was signed)',
  };
}

export function verifyApproval(
  settings: ApprovalSettings,
  input: VerifyApprovalInput,
  now: number,
): VerifyApprovalResult {
  const starter =
    input.starter === undefined ? {} : { starter: verifyStarter(settings, input, input.starter) };
  const refuse = (code: ApprovalRefusalCode, reason: string, keyId?: string): VerifyApprovalResult => ({
    accepted: false,
    code,
    reason,
    ...(input.by !== undefined && { by: input.by }),
    ...(keyId !== undefined && { keyId }),
    ...starter,
  });
  const { by, signature } = input;
  if (by === undefined || by === '') return refuse('APPROVAL_NO_NAME', 'the decision names no approver');
  if (isAgentName(by)) return refuse('APPROVAL_AGENT', agentApprovalRefusal(by), signature?.keyId);
  if (signature === undefined)
    return refuse(
      'APPROVAL_UNSIGNED',
      'this step needs a signed decision (tideline keys create, then approve with the key)',
    );
  if (
    signature.workflowId !== input.workflowId ||
    signature.runId !== input.runId ||
    signature.stepKey !== input.stepKey
  ) {
    return refuse(
      'APPROVAL_WRONG_RUN',
      `it was signed for ${signature.workflowId}/${signature.runId} step ${signature.stepKey}`,
      signature.keyId,
    );
  }
  const keys = keysOf(settings, by);
  if (keys.length === 0)
    return refuse('APPROVAL_UNKNOWN_KEY', `no approval key is registered for ${by}`, signature.keyId);
  const payload = approvalPayload({
    ...fields(input, signature),
    by,
    ...(input.plan !== undefined && { plan: input.plan }),
  });
  const match = keys.find(({ key }) => verifyPayload(payload, signature.value, key));
  if (match === undefined) {
    // Verifies over the step's earlier form: signed for a plan that has changed since.
    const withoutPlan =
      input.plan !== undefined &&
      keys.some(({ key }) =>
        verifyPayload(approvalPayload({ ...fields(input, signature), by }), signature.value, key),
      );
    return withoutPlan
      ? refuse(
          'APPROVAL_PLAN_CHANGED',
          'the signature does not cover the plan this step guards now (sign again after reading it with `tideline approve`)',
          signature.keyId,
        )
      : refuse(
          'APPROVAL_BAD_SIGNATURE',
          `the signature does not verify with the key registered for ${by} and the plan this step guards`,
          signature.keyId,
        );
  }
  const stale = freshness(signature.signedAt, now);
  if (stale !== undefined) return refuse('APPROVAL_STALE', stale, match.id);
  const via = approverEntry(settings, input.approvers, by);
  if (via === undefined)
    return refuse(
      'APPROVAL_NOT_APPROVER',
      `${by} is not one of this step's approvers (${input.approvers.join(', ')})`,
      match.id,
    );
  return { accepted: true, by, keyId: match.id, via, ...starter };
}

function fields(input: VerifyApprovalInput, signature: NonNullable<VerifyApprovalInput['signature']>) {
  return {
    workflowId: input.workflowId,
    runId: input.runId,
    stepKey: input.stepKey,
    approved: input.approved,
    comment: input.comment,
    signedAt: signature.signedAt,
    nonce: signature.nonce,
  };
}

/**
 * Checks an operator's hold action: signed with a key registered for its `by`, recently. An
 * unsigned action is accepted as a claim only where the worker does not require signatures.
 */
export function verifyHoldAction(
  settings: ApprovalSettings,
  input: VerifyHoldActionInput,
  now: number,
): VerifyHoldActionResult {
  const { signature, by } = input;
  if (signature === undefined || by === undefined || by === '') {
    return input.required
      ? {
          accepted: false,
          code: 'HOLD_UNSIGNED',
          reason:
            'this worker takes only signed hold actions (tideline keys create, then act with --by NAME)',
        }
      : { accepted: true, by: by ?? null, verified: false };
  }
  const keys = keysOf(settings, by);
  if (keys.length === 0)
    return { accepted: false, code: 'HOLD_UNKNOWN_KEY', reason: `no approval key is registered for ${by}` };
  const payload = holdActionPayload({
    ...input,
    step: input.step,
    reason: input.reason,
    by,
    signedAt: signature.signedAt,
    nonce: signature.nonce,
  });
  const match = keys.find(({ key }) => verifyPayload(payload, signature.value, key));
  if (match === undefined)
    return {
      accepted: false,
      code: 'HOLD_BAD_SIGNATURE',
      reason: `the signature does not verify with the key registered for ${by}`,
    };
  const stale = freshness(signature.signedAt, now);
  if (stale !== undefined) return { accepted: false, code: 'HOLD_STALE', reason: stale };
  return { accepted: true, by, verified: true, keyId: match.id };
}

export function createVerifyApprovalActivity(
  settings: ApprovalSettings | undefined,
  clock: Clock = systemClock,
) {
  const configured = settings ?? { keys: new Map(), groups: new Map() };
  return async (input: VerifyApprovalInput): Promise<VerifyApprovalResult> =>
    verifyApproval(configured, input, clock.now());
}
