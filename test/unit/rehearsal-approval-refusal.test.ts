// What a case says when its run refuses a scripted decision: the run's reason and code, and only
// when the decider is no approver the case's worker knows, how a case makes one.
import { approvalRefusalText } from '../../rehearsal/approval-refusal';

const approve = { step: 'sign_off', decision: 'approve' as const, by: 'tideline-test' };

it('an unsigned decision on a step that lists people names one of them as the approver to add', () => {
  expect(
    approvalRefusalText(
      1,
      approve,
      { code: 'APPROVAL_UNSIGNED', reason: 'this step needs a signed decision' },
      ['alice', 'bob'],
    ),
  ).toBe(
    "approvals[1]: the run refused tideline-test's approval of sign_off: this step needs a signed decision (APPROVAL_UNSIGNED); a decision on this step counts only signed by one of its approvers (alice, bob), whom the case's worker knows: e.g. people: { alice: {} } and by: alice",
  );
});

it('a person outside the step’s groups is told to join one', () => {
  expect(
    approvalRefusalText(
      0,
      { ...approve, decision: 'reject', by: 'dave' },
      {
        code: 'APPROVAL_NOT_APPROVER',
        reason: 'dave is not one of this step’s approvers (alice, group:dba)',
      },
      ['alice', 'group:dba'],
    ),
  ).toMatch(
    /refused dave's rejection of sign_off: .*\(APPROVAL_NOT_APPROVER\); .*people: \{ dave: \{ groups: \[dba\] \} \} and by: dave$/,
  );
});

it('a refusal of an approver (self-approval, twice) is the run’s reason alone', () => {
  expect(
    approvalRefusalText(
      0,
      { ...approve, by: 'alice' },
      { code: 'APPROVAL_SELF', reason: 'alice started this run; this step does not allow self-approval' },
      ['alice', 'bob'],
    ),
  ).toBe(
    "approvals[0]: the run refused alice's approval of sign_off: alice started this run; this step does not allow self-approval (APPROVAL_SELF)",
  );
});
