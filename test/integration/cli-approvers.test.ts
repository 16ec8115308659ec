// The approver's side through the CLI itself: `tideline keys create` writes each person's private
// key (0600) and prints the line the worker's configuration takes; `tideline run --by` signs the
// start, `tideline approve --by` signs each decision with the key it finds under HOME, in two
// steps: without --plan it shows the plan and its fingerprint and signs nothing, a stale
// fingerprint is refused, the right one signs. The worker refuses the starter's approval (exit 1,
// with the reason) and counts two others; `tideline audit
// --json` lists the three decisions, and the run promotes the service.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parsePublicKey } from '../../activities/approval-keys';
import { runCli } from '../../cli/main';
import { capturedStreams } from '../helpers/captured-streams';
import { getService, pollUntil, seedService } from '../helpers/runbook-fixtures';
import { startRunbookStack, type RunbookStack } from '../helpers/runbook-stack';
import { TEST_ENCRYPTION_KEYS, testKeyRing } from '../helpers/worker-process';

const FIXTURE = path.resolve(__dirname, '..', 'fixtures', 'approvals', 'promote-to-prod.yaml');
const PEOPLE = ['alice', 'bob', 'dave'] as const;

let home: string;
let stack: RunbookStack;

async function tideline(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const { stdout, stderr, out, err } = capturedStreams();
  const flags =
    stack === undefined ? [] : ['--address', stack.server.address, '--task-queue', stack.taskQueue];
  const code = await runCli([...args, ...flags], {
    stdout,
    stderr,
    env: { HOME: home, TIDELINE_ENCRYPTION_KEYS: TEST_ENCRYPTION_KEYS, NO_COLOR: '1' },
    cwd: process.cwd(),
    interrupted: new Promise(() => undefined),
  });
  return { code, out: out(), err: err() };
}

beforeAll(async () => {
  home = mkdtempSync(path.join(tmpdir(), 'tideline-approvers-'));
  const keys = new Map<string, string[]>();
  for (const name of PEOPLE) {
    const created = await tideline(['keys', 'create', name]);
    expect({ code: created.code, err: created.err }).toEqual({ code: 0, err: '' });
    const line = /^\s*(\w+): '?(ed25519:[^'\s]+)'?\s*$/m.exec(created.out);
    expect(line?.[1]).toBe(name);
    expect(parsePublicKey(line![2]!)).toBeDefined();
    keys.set(name, [line![2]!]);
  }
  // dave is a DBA: listed through the group, and the run's starter.
  stack = await startRunbookStack(
    { timeScale: 0.05 },
    { keyRing: testKeyRing, approvals: { keys, groups: new Map([['dba', ['dave']]]) } },
  );
}, 120_000);
afterAll(async () => {
  await stack?.close();
  rmSync(home, { recursive: true, force: true });
});

test('keys create writes a private key only its owner can read, and never overwrites it', async () => {
  const file = path.join(home, '.tideline', 'approval-keys', 'alice.pem');
  expect(statSync(file).mode & 0o777).toBe(0o600);
  const again = await tideline(['keys', 'create', 'alice']);
  expect(again.code).not.toBe(0);
  expect(again.err).not.toContain('PRIVATE KEY');
});

test('a signed start, the starter refused, two signed approvals counted and audited', async () => {
  const service = await seedService(stack, { name: 'billing' });
  const id = 'promote-billing';
  const started = await tideline([
    'run',
    FIXTURE,
    '-i',
    `project_id=${stack.projectId}`,
    '-i',
    `service_id=${service.service_id}`,
    '--id',
    id,
    '--by',
    'dave',
    '--detach',
  ]);
  expect({ code: started.code, err: started.err }).toEqual({ code: 0, err: '' });
  const handle = stack.client.workflow.getHandle(id);
  await pollUntil(
    'the approval to be pending',
    () => handle.query<{ pendingApproval?: { stepKey: string } }>('progress'),
    (p) => p.pendingApproval?.stepKey === 'sign_off',
    60_000,
  );

  // Approving is two steps. Without --plan: the plan and its fingerprint, and nothing signed.
  const read = await tideline(['approve', id, '--by', 'alice']);
  expect(read.code).toBe(1);
  const fingerprint = /^plan fingerprint: ([0-9a-f]{16})$/m.exec(read.out)?.[1] ?? '';
  expect(read.out).toContain(`promote: service.setEnvironment`);
  expect(read.out).toContain(`service_id=${service.service_id}`);
  expect(read.err).toContain('nothing was signed');
  expect(read.err).toContain(`approve ${id} --by alice --plan ${fingerprint}`);
  const asJson = JSON.parse((await tideline(['--json', 'approve', id, '--by', 'alice'])).out) as {
    error: { code: string };
    fingerprint: string;
  };
  expect(asJson).toMatchObject({ error: { code: 'APPROVAL_PLAN_UNCONFIRMED' }, fingerprint });
  // A fingerprint of another plan: refused, the plan shown again, nothing signed.
  const stale = await tideline(['approve', id, '--by', 'alice', '--plan', '0123456789abcdef']);
  expect(stale.code).toBe(1);
  expect(stale.err).toContain('not the one with fingerprint 0123456789abcdef');
  expect(stale.out).toContain(`plan fingerprint: ${fingerprint}`);
  const staleJson = await tideline(['--json', 'approve', id, '--by', 'alice', '--plan', '0123456789abcdef']);
  expect(JSON.parse(staleJson.out)).toMatchObject({ error: { code: 'APPROVAL_PLAN_CHANGED' }, fingerprint });
  // None of that reached the run: it still waits, no decision recorded.
  const still = await handle.query<{ pendingApproval?: { approvedBy?: string[] }; approvals?: unknown[] }>(
    'progress',
  );
  expect(still.pendingApproval?.approvedBy ?? []).toEqual([]);
  expect(still.approvals ?? []).toEqual([]);

  const self = await tideline(['approve', id, '--by', 'dave', '--plan', fingerprint]);
  expect(self.code).toBe(1);
  expect(self.err).toMatch(/did not count this decision/);
  const alice = await tideline([
    'approve',
    id,
    '--by',
    'alice',
    '--comment',
    'checked',
    '--plan',
    fingerprint,
  ]);
  expect(alice.code).toBe(0);
  expect((await tideline(['approve', id, '--by', 'bob', '--plan', fingerprint.toUpperCase()])).code).toBe(0);

  await pollUntil(
    'the run to end',
    () => handle.describe(),
    (d) => d.status.name !== 'RUNNING',
    60_000,
  );
  expect((await handle.describe()).status.name).toBe('COMPLETED');
  expect((await getService(stack, service.service_id!)).metadata?.environment).toBe('PROD');

  const audit = await tideline(['--json', 'audit', id]);
  expect(audit.code).toBe(0);
  const entries = (JSON.parse(audit.out) as { approvals: { by: string; accepted: boolean }[] }).approvals;
  expect(entries.map((e) => [e.by, e.accepted])).toEqual([
    ['dave', false],
    ['alice', true],
    ['bob', true],
  ]);
  expect(audit.out).not.toContain('PRIVATE KEY');
  // status and history show the same decisions, one line each.
  const status = await tideline(['status', id]);
  expect(status.code).toBe(0);
  const decided = status.out.split('\n').filter((line) => line.startsWith('  approval: '));
  expect(decided).toHaveLength(3);
  expect(decided[0]).toMatch(/sign_off approve by dave key \S+: refused APPROVAL_SELF: /);
  expect(decided[1]).toMatch(/sign_off approve by alice key \S+ "checked": counted/);
  const history = await tideline(['history', id]);
  expect(history.code).toBe(0);
  expect(history.out).toContain('decisions on approval steps with approvers:');
  expect(history.out).toMatch(/sign_off approve by bob key \S+: counted/);
}, 120_000);

test("a schedule created with --by starts runs verified as its creator's; made again with the copied action, refused", async () => {
  const service = await seedService(stack, { name: 'nightly' });
  const name = 'nightly-promote';
  const created = await tideline([
    'schedule',
    'create',
    name,
    '--runbook',
    FIXTURE,
    '--every',
    '24h',
    '--paused',
    '-i',
    `project_id=${stack.projectId}`,
    '-i',
    `service_id=${service.service_id}`,
    '--by',
    'dave',
  ]);
  expect({ code: created.code, err: created.err }).toEqual({ code: 0, err: '' });
  const schedule = stack.client.schedule.getHandle(name);
  const described = await schedule.describe();
  expect(described.state.paused).toBe(true);
  const action = described.action;
  if (action.type !== 'startWorkflow') throw new Error(`unexpected action ${action.type}`);
  const runOf = async () => {
    expect((await tideline(['schedule', 'trigger', name])).code).toBe(0);
    // Each schedule here is triggered once: its one recent action is that run. (Runs of a schedule
    // triggered in the same second share a workflow id; their run ids differ.)
    const workflow = await pollUntil(
      'the triggered run',
      async () => (await schedule.describe()).info.recentActions.at(-1)?.action.workflow,
      (started) => started !== undefined,
      30_000,
    );
    return workflow!;
  };
  const first = await runOf();
  const audited = async (id: string) => {
    await pollUntil(
      'the admission',
      async () => JSON.parse((await tideline(['--json', 'audit', id])).out) as { admission?: unknown },
      (audit) => audit.admission !== undefined,
      30_000,
    );
    return (
      JSON.parse((await tideline(['--json', 'audit', id])).out) as {
        admission: {
          allowed: boolean;
          code?: string;
          starter: { by: string; verified: boolean; groups: string[] };
        };
      }
    ).admission;
  };
  expect((await audited(first.workflowId)).starter).toEqual({ by: 'dave', verified: true, groups: ['dba'] });
  await stack.client.workflow.getHandle(first.workflowId).terminate('test over');

  // Deleted, then made again under the same name by a raw client, carrying dave's signed action.
  expect((await tideline(['schedule', 'delete', name])).code).toBe(0);
  await stack.client.schedule.create({
    scheduleId: name,
    spec: { intervals: [{ every: '24h' }] },
    action: { ...action, workflowType: 'runbookWorkflow' },
    state: { paused: true },
  });
  try {
    const copied = await runOf();
    expect(copied.firstExecutionRunId).not.toBe(first.firstExecutionRunId);
    const refused = await audited(copied.workflowId);
    expect(refused).toMatchObject({ allowed: false, code: 'START_REPLAYED' });
    const audit = await tideline(['audit', copied.workflowId]);
    expect(audit.out).toContain('START_REPLAYED');
  } finally {
    await schedule.delete();
  }
  expect((await getService(stack, service.service_id!)).metadata?.environment).not.toBe('PROD');
}, 120_000);
