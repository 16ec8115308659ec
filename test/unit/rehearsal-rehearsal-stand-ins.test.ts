// Who answers a rehearsal's approvals: one stand-in for a step without approvers; for a step with
// approvers, as many distinct stand-ins as its quorum needs, registered by the rehearsal's worker
// in every group a step lists — or, for a step that lists people only, in those people's names —
// and a run started by a stand-in starter who decides nothing.
// The request's entries are checked as the agent wrote them, before the stand-ins multiply them.
import path from 'node:path';
import { checkRunbookFile } from '../../dsl/loader';
import type { RunbookDefinition } from '../../dsl/definition';
import { rehearsalCase } from '../../rehearsal/rehearse-run';
import {
  REHEARSAL_APPROVER,
  REHEARSAL_STARTER,
  standInScript,
  standInsOf,
} from '../../rehearsal/rehearsal-stand-ins';

const FIXTURES = path.resolve(__dirname, '..', 'fixtures');

function definition(...parts: string[]): RunbookDefinition {
  const checked = checkRunbookFile(path.join(FIXTURES, ...parts));
  if (checked.definition === undefined) throw new Error(`${parts.join('/')} does not validate`);
  return checked.definition;
}

const promote = definition('approvals', 'promote-to-prod.yaml');
const twoPeople = definition('approvals', 'two-people-gate.yaml');
const gate = definition('cli', 'gate.yaml');

const answer = (step: string, decision: 'approve' | 'reject') => ({ step, decision, by: REHEARSAL_APPROVER });

it('a step without approvers is answered by the stand-in alone, on the suite’s worker', () => {
  expect(standInsOf({})).toEqual([REHEARSAL_APPROVER]);
  expect(standInScript(gate, [answer('gate', 'approve')])).toEqual({
    approvals: [answer('gate', 'approve')],
  });
});

it('a quorum with a group is met by distinct stand-ins, each in the group', () => {
  expect(standInsOf({ approvers: ['group:dba'], minApprovals: 3 })).toEqual([
    'rehearsal-stand-in',
    'rehearsal-stand-in-2',
    'rehearsal-stand-in-3',
  ]);
  expect(standInScript(promote, [answer('sign_off', 'approve')])).toEqual({
    approvals: [
      { step: 'sign_off', decision: 'approve', by: 'rehearsal-stand-in' },
      { step: 'sign_off', decision: 'approve', by: 'rehearsal-stand-in-2' },
    ],
    people: { 'rehearsal-stand-in': { groups: ['dba'] }, 'rehearsal-stand-in-2': { groups: ['dba'] } },
    // sign_off refuses self-approval: a verified starter of its own, who is no approver.
    starter: { name: REHEARSAL_STARTER, groups: [] },
  });
});

it('a step that lists people only is answered in their names; one rejection rejects', () => {
  expect(standInScript(twoPeople, [answer('sign_off', 'approve')]).approvals.map((a) => a.by)).toEqual([
    'alice',
    'bob',
  ]);
  expect(standInScript(twoPeople, [answer('sign_off', 'reject')])).toEqual({
    approvals: [{ step: 'sign_off', decision: 'reject', by: 'alice' }],
    people: { alice: { groups: [] }, bob: { groups: [] } },
    starter: { name: REHEARSAL_STARTER, groups: [] },
  });
});

it('a rehearsal case carries the stand-ins; problems name the agent’s own entries', () => {
  const check = rehearsalCase({
    definition: twoPeople,
    inputs: {},
    cloud: {},
    faults: [],
    approvals: [{ step: 'sign_off', decision: 'approve', by: 'mallory' }],
  });
  expect(check.ok && check.testCase.approvals.map((a) => a.by)).toEqual(['alice', 'bob']);
  expect(check.ok && check.testCase.people).toEqual({ alice: { groups: [] }, bob: { groups: [] } });
  expect(check.ok && check.testCase.starter).toEqual({ name: REHEARSAL_STARTER, groups: [] });
  const wrong = rehearsalCase({
    definition: twoPeople,
    inputs: {},
    cloud: {},
    faults: [],
    approvals: [
      { step: 'sign_off', decision: 'approve' },
      { step: 'sign_off', decision: 'maybe' },
    ],
  });
  expect(wrong.ok ? [] : wrong.problems).toEqual([expect.stringMatching(/^approvals\.1\.decision: /)]);
});
