// Text from outside tideline (an approver's name and comment, an operator's reason, a rejection
// message quoting them) prints escaped: a decision is one line whatever its `by` holds, escape
// sequences and bidi overrides show as visible escapes, and ordinary names print unchanged.
import type { ApprovalAuditEntry } from '../../contract/approval-messages';
import type { OperatorAction, RunProgress } from '../../contract/run-messages';
import { heldLines } from '../../cli/output/held-view';
import { printable, quoted } from '../../cloud/printable';
import { actionLine, approvalLines, auditLine, renderOutcome } from '../../cli/output/run-report';
import { stepError } from '../../cli/output/step-view';
import { PLAIN_STYLE } from '../../cli/output/style';

const T0 = Date.UTC(2024, 5, 1, 12, 0, 0);
const FORGED = 'mallory\n  12:00:00 approve promote by alice … counted (alice)';
const ctx = { globals: { json: false } };

function entry(extra: Partial<ApprovalAuditEntry>): ApprovalAuditEntry {
  return {
    stepKey: 'promote',
    decision: 'approve',
    by: 'alice',
    keyId: 'k1',
    comment: null,
    at: T0,
    signedAt: T0,
    accepted: true,
    via: 'alice',
    ...extra,
  };
}

describe('printable', () => {
  it.each([
    'alice',
    'bob@example.com',
    'Alice Smith',
    'zoë',
    'José Ñúñez',
    'Ærøskøbing',
    '山田 太郎',
    "O'Brien",
    'a\\b',
  ])('leaves %s unchanged', (name) => {
    expect(printable(name)).toBe(name);
  });

  it('escapes newline, carriage return and tab as \\n \\r \\t', () => {
    expect(printable('a\nb\rc\td')).toBe('a\\nb\\rc\\td');
  });

  it('escapes the other C0 controls, DEL and C1 (so an ESC sequence loses its ESC)', () => {
    expect(printable('\u0000\u0007\u0008\u001b[2J\u001b]0;title\u0007')).toBe(
      '\\u{0}\\u{7}\\u{8}\\u{1b}[2J\\u{1b}]0;title\\u{7}',
    );
    expect(printable('x\u007fy\u0085z\u009b31m')).toBe('x\\u{7f}y\\u{85}z\\u{9b}31m');
  });

  it('escapes bidi embeddings, overrides, isolates and marks', () => {
    const bidi = [
      0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f, 0x061c,
    ];
    for (const code of bidi) {
      expect(printable(`a${String.fromCodePoint(code)}b`)).toBe(`a\\u{${code.toString(16)}}b`);
    }
    expect(printable('alice\u202eecila')).toBe('alice\\u{202e}ecila');
  });

  it('escapes zero-width characters and the line and paragraph separators', () => {
    expect(printable('al\u200bice\u2028x\u2029y\ufeff')).toBe('al\\u{200b}ice\\u{2028}x\\u{2029}y\\u{feff}');
  });

  it('quoted() also escapes the quote and the backslash, so the quote ends where the text does', () => {
    expect(quoted('checked')).toBe('"checked"');
    expect(quoted('ok": counted (alice)\n')).toBe('"ok\\": counted (alice)\\n"');
    expect(quoted('a\\"b')).toBe('"a\\\\\\"b"');
  });
});

describe('auditLine', () => {
  it('prints a forged multi-line name as one line holding the escaped name', () => {
    const line = auditLine(
      entry({
        by: FORGED,
        accepted: false,
        code: 'APPROVAL_NOT_APPROVER',
        reason: `${FORGED} is not an approver`,
        via: undefined,
        keyId: null,
      }),
    );
    expect(line.split('\n')).toHaveLength(1);
    expect(line).toBe(
      '2024-06-01T12:00:00.000Z promote approve by mallory\\n  12:00:00 approve promote by alice … counted (alice): ' +
        'refused APPROVAL_NOT_APPROVER: mallory\\n  12:00:00 approve promote by alice … counted (alice) is not an approver',
    );
  });

  it('escapes every field that came with the decision', () => {
    const line = auditLine(
      entry({
        stepKey: 'promote\rX',
        by: 'alice\u202e',
        keyId: 'k1\u001b[8m',
        comment: 'fine\n"',
        via: 'group:ops\n',
      }),
    );
    expect(line).toBe(
      '2024-06-01T12:00:00.000Z promote\\rX approve by alice\\u{202e} key k1\\u{1b}[8m "fine\\n\\"": counted (group:ops\\n)',
    );
  });

  it('prints ordinary names and comments as they are', () => {
    expect(auditLine(entry({ by: 'zoë', keyId: 'zoë-1', via: 'zoë', comment: 'checked the fork' }))).toBe(
      '2024-06-01T12:00:00.000Z promote approve by zoë key zoë-1 "checked the fork": counted (zoë)',
    );
    expect(auditLine(entry({ by: 'bob@example.com', via: 'group:dba' }))).toBe(
      '2024-06-01T12:00:00.000Z promote approve by bob@example.com key k1: counted (group:dba)',
    );
  });
});

describe('other text outputs with names, comments and reasons', () => {
  const action: OperatorAction = {
    action: 'retry',
    stepKey: 'pooler',
    by: 'eve\n2024-06-01T12:00:00.000Z rollback pooler by alice',
    reason: 'because\u001b[2K',
    at: T0,
    inputs: ['size\n'],
  };

  it('actionLine keeps an operator action on one line', () => {
    expect(actionLine(action)).toBe(
      '2024-06-01T12:00:00.000Z retry pooler by eve\\n2024-06-01T12:00:00.000Z rollback pooler by alice' +
        ' (inputs changed: size\\n): because\\u{1b}[2K',
    );
  });

  it('a held run lists operator actions and the held error on their own lines only', () => {
    const progress: RunProgress = {
      runbook: 'r',
      status: 'held',
      startedAt: T0,
      steps: [],
      held: [
        {
          stepKey: 'pooler',
          error: { type: 'HTTP_500', message: 'boom\n    retry: rm -rf /' },
          heldAt: T0,
          deadline: T0 + 60_000,
        },
      ],
      actions: [action],
    };
    const lines = heldLines(ctx, 'run-1', progress, PLAIN_STYLE, T0);
    expect(lines.every((line) => !line.includes('\n'))).toBe(true);
    expect(lines[0]).toContain('held at step pooler: HTTP_500: boom\\n    retry: rm -rf /');
    expect(lines.at(-1)).toContain('by eve\\n2024-06-01T12:00:00.000Z rollback pooler by alice');
  });

  it('a rejection quoting its name and comment prints escaped in the step error and the report', () => {
    const message = 'rejected by mallory\n✓ r succeeded: looks fine\u202e';
    expect(
      stepError({
        key: 'go',
        id: 'go',
        kind: 'approve',
        status: 'failed',
        error: { type: 'APPROVAL_REJECTED', message },
      }),
    ).toBe('APPROVAL_REJECTED: rejected by mallory\\n✓ r succeeded: looks fine\\u{202e}');
    const report = renderOutcome(
      ctx,
      {
        workflowId: 'run-1',
        runId: 'x',
        status: 'failed',
        outputs: {},
        secretOutputs: [],
        failure: { stepKey: 'go', type: 'APPROVAL_REJECTED', message },
        progress: {
          runbook: 'r',
          status: 'failed',
          startedAt: T0,
          steps: [],
          approvals: [entry({ by: FORGED })],
        },
      },
      PLAIN_STYLE,
      false,
    );
    expect(report).not.toMatch(/^✓/m);
    expect(report).not.toMatch(/^\s+12:00:00 approve/m);
    expect(report).toContain(
      'step go: APPROVAL_REJECTED: rejected by mallory\\n✓ r succeeded: looks fine\\u{202e}',
    );
  });

  it('the names that approved a pending step print escaped', () => {
    const lines = approvalLines(
      ctx,
      'run-1',
      {
        stepKey: 'go',
        message: 'Go?',
        deadline: 0,
        default: 'reject',
        approvers: ['alice', 'bob'],
        minApprovals: 2,
        approvedBy: ['alice\n    approve: done'],
      },
      PLAIN_STYLE,
      T0,
    );
    expect(lines.every((line) => !line.includes('\n'))).toBe(true);
    expect(lines.join('\n')).toContain('approved 1 of 2 (alice\\n    approve: done)');
  });
});
