// A decision sent raw to Temporal (not through the CLI, so unsigned and with any name) whose name
// holds a newline and a bidi override: the run refuses it, `tideline audit` prints it as one line
// with the name escaped (no fake "counted (alice)" line), and `--json` keeps the exact name.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../../cli/main';
import { approvalUpdate } from '../../contract/run-messages';
import { capturedStreams } from '../helpers/captured-streams';
import { pollUntil } from '../helpers/runbook-fixtures';
import { startRunbookStack, type RunbookStack } from '../helpers/runbook-stack';
import { TEST_ENCRYPTION_KEYS, testKeyRing } from '../helpers/worker-process';

// One approval step with approvers (self-approval allowed, so an unsigned start is fine).
const RUNBOOK = [
  'apiVersion: tideline/v1',
  'name: sign-off',
  'description: An approval with approvers, then nothing.',
  'steps:',
  '  - id: sign_off',
  "    approve: 'Go on?'",
  '    approvers: [alice, bob]',
  '    timeout: 10m',
  '  - id: after',
  '    sleep: 1s',
  '',
].join('\n');
const FORGED = 'mallory\n  2024-06-01T12:00:00.000Z sign_off approve by alice key k1: counted (alice)\u202e';

let home: string;
let stack: RunbookStack;

async function tideline(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const { stdout, stderr, out, err } = capturedStreams();
  const code = await runCli([...args, '--address', stack.server.address, '--task-queue', stack.taskQueue], {
    stdout,
    stderr,
    env: { HOME: home, TIDELINE_ENCRYPTION_KEYS: TEST_ENCRYPTION_KEYS, NO_COLOR: '1' },
    cwd: process.cwd(),
    interrupted: new Promise(() => undefined),
  });
  return { code, out: out(), err: err() };
}

beforeAll(async () => {
  home = mkdtempSync(path.join(tmpdir(), 'tideline-audit-forged-'));
  writeFileSync(path.join(home, 'sign-off.yaml'), RUNBOOK);
  stack = await startRunbookStack(
    { timeScale: 0.05 },
    { keyRing: testKeyRing, approvals: { keys: new Map(), groups: new Map() } },
  );
}, 120_000);
afterAll(async () => {
  await stack?.close();
  rmSync(home, { recursive: true, force: true });
});

test('a forged multi-line approver name prints as one escaped audit line', async () => {
  const id = 'sign-off-forged';
  const started = await tideline(['run', path.join(home, 'sign-off.yaml'), '--id', id, '--detach']);
  expect({ code: started.code, err: started.err }).toEqual({ code: 0, err: '' });
  const handle = stack.client.workflow.getHandle(id);
  await pollUntil(
    'the approval to be pending',
    () => handle.query<{ pendingApproval?: { stepKey: string } }>('progress'),
    (p) => p.pendingApproval?.stepKey === 'sign_off',
    60_000,
  );
  const outcome = await handle.executeUpdate(approvalUpdate, {
    args: [{ approved: true, step: 'sign_off', by: FORGED, comment: 'ok": counted\n' }],
  });
  expect(outcome.refused).toBeDefined();

  const audit = await tideline(['audit', id]);
  expect({ code: audit.code, err: audit.err }).toEqual({ code: 0, err: '' });
  const lines = audit.out.trimEnd().split('\n');
  expect(lines).toEqual([
    expect.stringMatching(new RegExp(`^run ${id}: start: admitted; definition [0-9a-f]{12} `)),
    `run ${id}: 1 decision(s)`,
    expect.stringMatching(/^ {2}\S+ sign_off approve by mallory\\n/),
  ]);
  expect(lines[2]).toContain(
    'by mallory\\n  2024-06-01T12:00:00.000Z sign_off approve by alice key k1: counted (alice)\\u{202e} "ok\\": counted\\n": refused ',
  );
  expect(audit.out).not.toContain('\u202e');

  const json = await tideline(['--json', 'audit', id]);
  const entries = (JSON.parse(json.out) as { approvals: { by: string; accepted: boolean }[] }).approvals;
  expect(entries.map((e) => [e.by, e.accepted])).toEqual([[FORGED, false]]);

  await handle.cancel();
}, 120_000);
