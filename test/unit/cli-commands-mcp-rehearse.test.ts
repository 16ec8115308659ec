// The rehearse tool's answer text: a rehearsal that timed out at an approval the request did not
// answer says which to script; one the request answered is never told to send it again.
import { rehearsalText } from '../../cli/commands/mcp-rehearse';
import type { RehearsalOutcome } from '../../rehearsal/rehearse-run';

const waitingAt = (key: string): RehearsalOutcome => ({
  status: 'timed-out',
  steps: [
    { key: 'prepare', id: 'prepare', kind: 'sleep', status: 'done' },
    { key, id: key.replace(/^.*\./, ''), kind: 'approve', status: 'running' },
  ],
  calls: {},
  compensations: [],
});

it('an approval left unanswered: script it', () => {
  expect(rehearsalText('gate', waitingAt('sign_off'))).toContain(
    'the run waited for approval at sign_off: rehearse again with approvals, e.g. [{"step": "sign_off", "decision": "approve"}]',
  );
});

it('an approval the request answered is not asked for again; the text says what to look at', () => {
  const text = rehearsalText('gate', waitingAt('each[1].sign_off'), ['sign_off']);
  expect(text).not.toContain('rehearse again');
  expect(text).toContain(
    'the run still waited for approval at each[1].sign_off, which approvals name: each time a step is asked takes an answer of its own, named by the key shown here',
  );
});

it('a note that says why (a refused answer) stands alone', () => {
  const text = rehearsalText('gate', { ...waitingAt('sign_off'), error: 'approvals[0]: the run refused …' }, [
    'sign_off',
  ]);
  expect(text).toContain('note: approvals[0]: the run refused …');
  expect(text).not.toContain('waited for approval');
});
