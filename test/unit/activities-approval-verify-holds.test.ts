// Signed hold actions (activities/approval-verify.ts `verifyHoldAction`): what the signature covers
// (the run, the action, the step, the reason and what it changes), who may sign, for how long, and
// when an unsigned action is a claim; and decisions bound to the plan they were signed over
// (`verifyApproval` with a `plan`).
import { generateKeyPairSync } from 'node:crypto';
import { keyId, publicKeyText } from '../../activities/approval-keys';
import { verifyApproval, verifyHoldAction } from '../../activities/approval-verify';
import type { ApprovalSettings } from '../../activities/deps';
import { signDecision, signHoldAction } from '../../activities/approval-signatures';
import {
  holdActionChanges,
  type ApprovalPlan,
  type HoldActionName,
  type VerifyApprovalInput,
  type VerifyHoldActionInput,
} from '../../contract/approval-messages';

const NOW = 1_900_000_000_000;
const alice = generateKeyPairSync('ed25519');
const mallory = generateKeyPairSync('ed25519');
const settings: ApprovalSettings = {
  keys: new Map([
    ['alice', [publicKeyText(alice.publicKey)]],
    ['mallory', [publicKeyText(mallory.publicKey)]],
  ]),
  groups: new Map(),
};
const RUN = { workflowId: 'wf-hold', runId: 'run-1' };

interface Action {
  action: HoldActionName;
  step?: string;
  by: string;
  reason?: string;
  changes: unknown;
}

const retry: Action = {
  action: 'retry',
  step: 'resize',
  by: 'alice',
  reason: 'quota raised',
  changes: holdActionChanges('retry', { inputs: { cpu_millis: '4000' }, with: { memory_gbs: '16' } }),
};

/** The action as the worker is asked to check it, signed by `key` at `signedAt`. */
function signed(action: Action, key = alice.privateKey, signedAt = NOW - 5_000): VerifyHoldActionInput {
  const signature = signHoldAction(key, { ...RUN, ...action }, signedAt);
  return { ...RUN, ...action, signature, required: true };
}

describe('verifyHoldAction', () => {
  test('a hold action signed over what it changes verifies, naming the key', () => {
    expect(verifyHoldAction(settings, signed(retry), NOW)).toEqual({
      accepted: true,
      by: 'alice',
      verified: true,
      keyId: keyId(alice.publicKey),
    });
    const skip: Action = {
      action: 'skip',
      step: 'resize',
      by: 'alice',
      changes: holdActionChanges('skip', { output: { ok: true } }),
    };
    expect(verifyHoldAction(settings, signed(skip), NOW)).toMatchObject({ accepted: true, verified: true });
  });

  test('inputs or with changed after signing do not verify', () => {
    const input = signed(retry);
    const otherInputs = holdActionChanges('retry', {
      inputs: { cpu_millis: '32000' },
      with: { memory_gbs: '16' },
    });
    const otherWith = holdActionChanges('retry', {
      inputs: { cpu_millis: '4000' },
      with: { memory_gbs: '128' },
    });
    for (const changes of [otherInputs, otherWith]) {
      expect(verifyHoldAction(settings, { ...input, changes }, NOW)).toEqual({
        accepted: false,
        code: 'HOLD_BAD_SIGNATURE',
        reason: 'the signature does not verify with the key registered for alice',
      });
    }
  });

  test('a signature for another action, step, reason or run does not verify', () => {
    const rollback: Action = { action: 'rollback', by: 'alice', changes: null };
    const input = signed(rollback);
    const variants: VerifyHoldActionInput[] = [
      { ...input, action: 'skip' },
      { ...input, step: 'other' },
      { ...input, reason: 'added later' },
      { ...input, runId: 'run-2' },
      { ...input, workflowId: 'wf-other' },
    ];
    for (const variant of variants)
      expect(verifyHoldAction(settings, variant, NOW)).toMatchObject({
        accepted: false,
        code: 'HOLD_BAD_SIGNATURE',
      });
    expect(verifyHoldAction(settings, input, NOW).accepted).toBe(true);
  });

  test('a signer with no registered key is refused; another key under a registered name does not verify', () => {
    const unknown = signed({ ...retry, by: 'zed' });
    expect(verifyHoldAction(settings, unknown, NOW)).toEqual({
      accepted: false,
      code: 'HOLD_UNKNOWN_KEY',
      reason: 'no approval key is registered for zed',
    });
    const forged = signed(retry, mallory.privateKey);
    expect(verifyHoldAction(settings, forged, NOW)).toMatchObject({
      accepted: false,
      code: 'HOLD_BAD_SIGNATURE',
    });
  });

  test('a signature older than 10 minutes, or from the future, is stale', () => {
    const old = verifyHoldAction(settings, signed(retry, alice.privateKey, NOW - 11 * 60_000), NOW);
    expect(old).toEqual({
      accepted: false,
      code: 'HOLD_STALE',
      reason: 'it was signed 660s ago; signatures are accepted for 600s',
    });
    const future = verifyHoldAction(settings, signed(retry, alice.privateKey, NOW + 2 * 60_000), NOW);
    expect(future).toMatchObject({ accepted: false, code: 'HOLD_STALE' });
    expect(verifyHoldAction(settings, signed(retry, alice.privateKey, NOW - 9 * 60_000), NOW).accepted).toBe(
      true,
    );
  });

  test('an unsigned action is refused where signatures are required, and an unverified claim elsewhere', () => {
    const unsigned: VerifyHoldActionInput = { ...RUN, ...retry, required: true };
    expect(verifyHoldAction(settings, unsigned, NOW)).toEqual({
      accepted: false,
      code: 'HOLD_UNSIGNED',
      reason: 'this worker takes only signed hold actions (tideline keys create, then act with --by NAME)',
    });
    expect(verifyHoldAction(settings, { ...unsigned, required: false }, NOW)).toEqual({
      accepted: true,
      by: 'alice',
      verified: false,
    });
    const { by: _dropped, ...nameless } = unsigned;
    expect(verifyHoldAction(settings, { ...nameless, required: false }, NOW)).toEqual({
      accepted: true,
      by: null,
      verified: false,
    });
    // A signature without a name is no better than none.
    const { by: _unnamed, ...anonymous } = signed(retry);
    expect(verifyHoldAction(settings, anonymous, NOW)).toMatchObject({
      accepted: false,
      code: 'HOLD_UNSIGNED',
    });
  });
});

describe('verifyApproval with a plan', () => {
  const STEP = { ...RUN, stepKey: 'sign_off' };
  const planA: ApprovalPlan = {
    definitionHash: 'a'.repeat(64),
    changes: [
      { stepKey: 'resize', action: 'service.resize', with: { service_id: 's1', cpu_millis: '4000' } },
    ],
  };
  const planB: ApprovalPlan = {
    ...planA,
    changes: [
      { stepKey: 'resize', action: 'service.resize', with: { service_id: 's1', cpu_millis: '32000' } },
    ],
  };

  function decision(
    signedPlan: ApprovalPlan | undefined,
    plan: ApprovalPlan | undefined,
  ): VerifyApprovalInput {
    const signature = signDecision(
      alice.privateKey,
      { ...STEP, approved: true, by: 'alice', ...(signedPlan !== undefined && { plan: signedPlan }) },
      NOW - 1_000,
    );
    return {
      ...STEP,
      approvers: ['alice'],
      approved: true,
      by: 'alice',
      signature,
      ...(plan !== undefined && { plan }),
    };
  }

  test('a decision signed over the plan the step guards verifies', () => {
    expect(verifyApproval(settings, decision(planA, planA), NOW)).toEqual({
      accepted: true,
      by: 'alice',
      keyId: keyId(alice.publicKey),
      via: 'alice',
    });
  });

  test('a decision signed over plan A does not verify against plan B', () => {
    expect(verifyApproval(settings, decision(planA, planB), NOW)).toMatchObject({
      accepted: false,
      code: 'APPROVAL_BAD_SIGNATURE',
      by: 'alice',
      keyId: keyId(alice.publicKey),
    });
    const otherDefinition = { ...planA, definitionHash: 'b'.repeat(64) };
    expect(verifyApproval(settings, decision(planA, otherDefinition), NOW)).toMatchObject({
      code: 'APPROVAL_BAD_SIGNATURE',
    });
  });

  test('a decision signed with no plan against a step that has one: the plan changed', () => {
    const result = verifyApproval(settings, decision(undefined, planA), NOW);
    expect(result).toMatchObject({ accepted: false, code: 'APPROVAL_PLAN_CHANGED' });
    expect(result.accepted === false && result.reason).toMatch(
      /does not cover the plan this step guards now/,
    );
  });

  test('a decision signed over a plan does not verify where the step has none', () => {
    expect(verifyApproval(settings, decision(planA, undefined), NOW)).toMatchObject({
      accepted: false,
      code: 'APPROVAL_BAD_SIGNATURE',
    });
  });
});
