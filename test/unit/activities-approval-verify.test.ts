// Signing and verifying approval decisions (activities/approval-verify.ts): every way a decision
// is refused, against keys made here, with a pinned clock.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { keyId, parsePublicKey, publicKeyText, signPayload } from '../../activities/approval-keys';
import { verifyApproval } from '../../activities/approval-verify';
import type { ApprovalSettings } from '../../activities/deps';
import {
  approvalPayload,
  legacyStartPayload,
  type ApprovalSignature,
  type VerifyApprovalInput,
} from '../../contract/approval-messages';

const NOW = 1_800_000_000_000;
const pair = () => generateKeyPairSync('ed25519');
const alice = pair();
const bob = pair();
const carol = pair();
const settings: ApprovalSettings = {
  keys: new Map([
    ['alice', [publicKeyText(alice.publicKey)]],
    ['bob', [publicKeyText(bob.publicKey)]],
    ['carol', [publicKeyText(carol.publicKey)]],
  ]),
  groups: new Map([['dba', ['carol']]]),
};
const RUN = { workflowId: 'wf-1', runId: 'run-1', stepKey: 'go' };

function signed(
  by: string,
  key: ReturnType<typeof pair>,
  extra: Partial<{
    approved: boolean;
    comment: string;
    signedAt: number;
    runId: string;
    stepKey: string;
  }> = {},
): VerifyApprovalInput {
  const approved = extra.approved ?? true;
  const signedAt = extra.signedAt ?? NOW - 1000;
  const nonce = randomBytes(16).toString('base64url');
  const runId = extra.runId ?? RUN.runId;
  const stepKey = extra.stepKey ?? RUN.stepKey;
  const payload = approvalPayload({
    ...RUN,
    runId,
    stepKey,
    approved,
    by,
    comment: extra.comment,
    signedAt,
    nonce,
  });
  const signature: ApprovalSignature = {
    keyId: keyId(key.publicKey),
    nonce,
    signedAt,
    workflowId: RUN.workflowId,
    runId,
    stepKey,
    value: signPayload(payload, key.privateKey),
  };
  return {
    ...RUN,
    approvers: ['alice', 'bob', 'group:dba'],
    approved,
    by,
    ...(extra.comment !== undefined && { comment: extra.comment }),
    signature,
  };
}

const verify = (input: VerifyApprovalInput, now = NOW) => verifyApproval(settings, input, now);

describe('approval.verify', () => {
  it('accepts a good signature by a listed person, naming the key and the entry', () => {
    expect(verify(signed('alice', alice, { comment: 'ok' }))).toEqual({
      accepted: true,
      by: 'alice',
      keyId: keyId(alice.publicKey),
      via: 'alice',
    });
  });

  it('accepts a group member through the group', () => {
    expect(verify(signed('carol', carol))).toMatchObject({ accepted: true, via: 'group:dba' });
  });

  it.each([
    ['a tampered comment', { comment: 'changed' }, 'APPROVAL_BAD_SIGNATURE'],
    ['a flipped decision', { approved: false }, 'APPROVAL_BAD_SIGNATURE'],
    ['another name on alice’s signature', { by: 'bob' }, 'APPROVAL_BAD_SIGNATURE'],
    ['no signature', { signature: undefined }, 'APPROVAL_UNSIGNED'],
    ['no name', { by: undefined }, 'APPROVAL_NO_NAME'],
  ])('refuses %s', (_what, change, code) => {
    const input: VerifyApprovalInput = { ...signed('alice', alice, { comment: 'ok' }), ...change };
    expect(verify(input)).toMatchObject({ accepted: false, code });
  });

  it('refuses a signature made with another key than the registered one', () => {
    expect(verify(signed('alice', pair()))).toMatchObject({
      accepted: false,
      code: 'APPROVAL_BAD_SIGNATURE',
    });
  });

  it('refuses a signature made for another run or step', () => {
    const otherRun = signed('alice', alice, { runId: 'run-0' });
    expect(verify(otherRun)).toMatchObject({ accepted: false, code: 'APPROVAL_WRONG_RUN' });
    const otherStep = signed('alice', alice, { stepKey: 'other' });
    expect(verify(otherStep)).toMatchObject({ accepted: false, code: 'APPROVAL_WRONG_RUN' });
  });

  it('refuses a replayed old signature as stale, and one from the future', () => {
    expect(verify(signed('alice', alice), NOW + 11 * 60_000)).toMatchObject({ code: 'APPROVAL_STALE' });
    expect(verify(signed('alice', alice, { signedAt: NOW + 5 * 60_000 }))).toMatchObject({
      code: 'APPROVAL_STALE',
    });
  });

  it('refuses an unknown approver and a registered person not listed', () => {
    const mallory = pair();
    expect(verify(signed('mallory', mallory))).toMatchObject({ code: 'APPROVAL_UNKNOWN_KEY' });
    const onlyBob = { ...signed('alice', alice), approvers: ['bob', 'group:dba'] };
    expect(verify(onlyBob)).toMatchObject({ accepted: false, code: 'APPROVAL_NOT_APPROVER' });
    const emptyGroup = { ...signed('carol', carol), approvers: ['group:ops'] };
    expect(verify(emptyGroup)).toMatchObject({ accepted: false, code: 'APPROVAL_NOT_APPROVER' });
  });

  it('verifies the signed start of a run the worker did not admit (an earlier release), and says why an unsigned or forged one is not', () => {
    const nonce = 'n1';
    const signedAt = NOW - 60_000;
    const value = signPayload(
      legacyStartPayload({ workflowId: RUN.workflowId, by: 'bob', signedAt, nonce }),
      bob.privateKey,
    );
    const signature = { keyId: keyId(bob.publicKey), nonce, signedAt, workflowId: RUN.workflowId, value };
    const good = verify({ ...signed('alice', alice), starter: { by: 'bob', signature } });
    expect(good.starter).toEqual({ by: 'bob', verified: true });
    const claimed = verify({ ...signed('alice', alice), starter: { by: 'bob' } });
    expect(claimed.starter).toMatchObject({ by: 'bob', verified: false });
    const forged = verify({ ...signed('alice', alice), starter: { by: 'carol', signature } });
    expect(forged.starter).toMatchObject({ by: 'carol', verified: false });
    // Checked against the run's start: fresh for the start it was made for, stale for a later one.
    const atStart = verify({
      ...signed('alice', alice),
      starter: { by: 'bob', signature },
      runStartedAt: signedAt + 2_000,
    });
    expect(atStart.starter).toEqual({ by: 'bob', verified: true });
    const copied = verify({
      ...signed('alice', alice),
      starter: { by: 'bob', signature },
      runStartedAt: signedAt + 3 * 60 * 60_000,
    });
    expect(copied.starter).toMatchObject({
      by: 'bob',
      verified: false,
      reason: expect.stringContaining("the start signature is not this start's: it was signed 10800s ago"),
    });
  });

  it('reads back the printed public key line', () => {
    const text = publicKeyText(alice.publicKey);
    expect(text).toMatch(/^ed25519:[A-Za-z0-9+/]{43}=$/);
    expect(keyId(parsePublicKey(text)!)).toBe(keyId(alice.publicKey));
    expect(parsePublicKey('ed25519:AAAA')).toBeUndefined();
  });
});

describe('approval.verify refuses agents', () => {
  const agent = pair();
  const withAgent: ApprovalSettings = {
    keys: new Map([...settings.keys, ['mcp:claude', [publicKeyText(agent.publicKey)]]]),
    groups: new Map([['dba', ['carol', 'mcp:claude']]]),
  };

  it.each([
    ['listed by name', ['mcp:claude']],
    ['listed through a group', ['group:dba']],
  ])(
    'refuses a valid signature of an agent identity %s, with its key id for the audit',
    (_how, approvers) => {
      const input: VerifyApprovalInput = { ...signed('mcp:claude', agent), approvers };
      expect(verifyApproval(withAgent, input, NOW)).toMatchObject({
        accepted: false,
        code: 'APPROVAL_AGENT',
        by: 'mcp:claude',
        keyId: keyId(agent.publicKey),
      });
    },
  );

  it.each(['MCP:claude', ' mcp:claude'])('is not fooled by %j', (name) => {
    const input: VerifyApprovalInput = { ...signed(name, agent), approvers: [name] };
    expect(verifyApproval(withAgent, input, NOW)).toMatchObject({ accepted: false, code: 'APPROVAL_AGENT' });
  });
});
