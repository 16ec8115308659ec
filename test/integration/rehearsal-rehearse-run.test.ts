// A rehearsal (rehearsal/rehearse-run.ts) on a real Temporal dev server, worker and local cloud of
// its own: provision-production-service with the seed the MCP rehearse tool makes (a VPC copied by
// name, the inputs naming the rehearsal cloud's copies) succeeds, and with every enablePooler call
// rate-limited it fails at the pooler and compensation deletes the service it created. A runbook
// with an approval step is rehearsed with its answer scripted: approved, it succeeds; rejected, it
// fails there and its completed step is undone; one whose approval step needs two of its
// approvers, never the starter, succeeds on one scripted approval (two stand-ins). A session's
// rehearsals (the MCP server's) share one stack, side by side, and a stack that did not start is
// started again at the next rehearsal.
import path from 'node:path';
import { checkRunbookFile } from '../../dsl/loader';
import { REHEARSAL_APPROVER, RehearsalStage, rehearsalCase, rehearseRun } from '../../rehearsal/rehearse-run';
import { startTestStack, type TestStack } from '../../rehearsal/test-stack';
import { provisionRehearsal } from '../../bench/lib/provision-rehearsal';

jest.setTimeout(240_000);

function provisioningCase(faults: unknown[]) {
  const check = rehearsalCase(provisionRehearsal(faults));
  if (!check.ok) throw new Error(check.problems.join('\n'));
  return check.testCase;
}

async function rehearsed(faults: unknown[]) {
  return rehearseRun(provisioningCase(faults), {
    env: process.env,
    timeoutMs: 120_000,
    log: () => undefined,
  });
}

test('with a fault, the run fails at the faulted step and compensation undoes what it created', async () => {
  const outcome = await rehearsed([
    { operation: 'service.enablePooler', kind: 'rateLimit', retryAfterSeconds: 0 },
  ]);
  expect(outcome.status).toBe('failed');
  expect(outcome.failure).toMatchObject({ stepKey: 'pooler' });
  expect(outcome.compensations).toEqual([
    { key: 'create/undo.delete_service', undoes: 'create', status: 'done' },
    { key: 'create/undo.service_gone', undoes: 'create', status: 'done' },
  ]);
  expect(outcome.steps.find((step) => step.key === 'create')?.status).toBe('compensated');
  expect(outcome.calls['service.create']?.total).toBe(1);
  expect(outcome.calls['service.delete']?.total).toBeGreaterThanOrEqual(1);
  expect(outcome.calls['service.enablePooler']?.byStatus).toHaveProperty('429');
});

test('without faults, the run succeeds and nothing is undone', async () => {
  const outcome = await rehearsed([]);
  expect(outcome.status).toBe('succeeded');
  expect(outcome.compensations.filter((step) => step.status !== 'pending')).toEqual([]);
  expect(outcome.calls['service.setEnvironment']?.total).toBe(1);
});

test('a fault the local cloud does not know is refused before anything starts', () => {
  const check = rehearsalCase(provisionRehearsal([{ operation: 'service.nope', kind: 'error' }]));
  expect(check.ok).toBe(false);
  expect(check.ok ? [] : check.problems).toEqual([expect.stringMatching(/^faults\.0\.operation: /)]);
});

describe('a runbook with an approval step, its answer scripted', () => {
  const gate = checkRunbookFile(path.resolve(__dirname, '..', 'fixtures', 'cli', 'gate.yaml')).definition;

  async function answered(decision?: 'approve' | 'reject') {
    if (gate === undefined) throw new Error('the gate fixture does not validate');
    // An agent cannot name who approves: the stand-in does, whatever `by` says.
    const check = rehearsalCase({
      definition: gate,
      inputs: {},
      cloud: {},
      faults: [],
      approvals: decision === undefined ? [] : [{ step: 'gate', decision, by: 'alice' }],
    });
    if (!check.ok) throw new Error(check.problems.join('\n'));
    for (const approval of check.testCase.approvals) expect(approval.by).toBe(REHEARSAL_APPROVER);
    return rehearseRun(check.testCase, { env: process.env, timeoutMs: 120_000, log: () => undefined });
  }

  test('unanswered, the rehearsal ends at the approval’s timeout on its clock, the step still waiting', async () => {
    const outcome = await answered();
    expect(outcome.status).toBe('timed-out');
    expect(outcome.steps.find((step) => step.key === 'gate')).toMatchObject({
      kind: 'approve',
      status: 'running',
    });
  });

  test('approved, the run goes on and succeeds', async () => {
    const outcome = await answered('approve');
    expect(outcome.status).toBe('succeeded');
    expect(outcome.steps.map((step) => [step.key, step.status])).toEqual(
      expect.arrayContaining([
        ['gate', 'done'],
        ['finish', 'done'],
      ]),
    );
  });

  test('rejected, the run fails at the approval and undoes what came before', async () => {
    const outcome = await answered('reject');
    expect(outcome.status).toBe('failed');
    expect(outcome.failure).toMatchObject({ stepKey: 'gate' });
    expect(outcome.compensations).toEqual([
      { key: 'prepare/undo.unprepare', undoes: 'prepare', status: 'done' },
    ]);
  });
});

test('a scripted approval on a step with approvers and a quorum counts: two stand-ins approve', async () => {
  // promote-to-prod's sign_off takes two of alice, bob and group:dba, never the starter's.
  const promote = checkRunbookFile(
    path.resolve(__dirname, '..', 'fixtures', 'approvals', 'promote-to-prod.yaml'),
  ).definition;
  if (promote === undefined) throw new Error('the promote-to-prod fixture does not validate');
  const check = rehearsalCase({
    definition: promote,
    inputs: { project_id: '${{ cloud.project_id }}', service_id: '${{ cloud.services.shop.id }}' },
    cloud: { services: [{ name: 'shop' }] },
    faults: [],
    approvals: [{ step: 'sign_off', decision: 'approve' }],
  });
  if (!check.ok) throw new Error(check.problems.join('\n'));
  const outcome = await rehearseRun(check.testCase, {
    env: process.env,
    timeoutMs: 120_000,
    log: () => undefined,
  });
  expect(outcome).toMatchObject({ status: 'succeeded' });
  expect(outcome.steps.find((step) => step.key === 'sign_off')?.status).toBe('done');
  expect(outcome.calls['service.setEnvironment']?.total).toBe(1);
});

describe('a session’s rehearsals', () => {
  const POOLER_FAULT = { operation: 'service.enablePooler', kind: 'rateLimit', retryAfterSeconds: 0 };

  /** A stage on real test stacks that counts their starts; `firstFails`: the first start's error. */
  function countedStage(firstFails?: Error): { stage: RehearsalStage; starts: () => number } {
    let starts = 0;
    const start = (env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<TestStack> => {
      starts += 1;
      return starts === 1 && firstFails !== undefined ? Promise.reject(firstFails) : startTestStack(env, log);
    };
    return {
      stage: new RehearsalStage({ env: process.env, log: () => undefined, start }),
      starts: () => starts,
    };
  }

  test('share one stack, side by side, each on a cloud of its own; closed, the next starts another', async () => {
    const { stage, starts } = countedStage();
    try {
      const [planned, faulted] = await Promise.all([
        stage.rehearse(provisioningCase([]), 120_000),
        stage.rehearse(provisioningCase([POOLER_FAULT]), 120_000),
      ]);
      expect(planned.status).toBe('succeeded');
      expect(planned.calls['service.enablePooler']?.byStatus).not.toHaveProperty('429');
      expect(faulted.status).toBe('failed');
      expect(faulted.failure).toMatchObject({ stepKey: 'pooler' });
      expect(starts()).toBe(1);
      const again = await stage.rehearse(provisioningCase([]), 120_000);
      expect(again.status).toBe('succeeded');
      expect(starts()).toBe(1);
      await stage.close();
      expect((await stage.rehearse(provisioningCase([]), 120_000)).status).toBe('succeeded');
      expect(starts()).toBe(2);
    } finally {
      await stage.close();
    }
  });

  test('a stack that did not start is started again by the next rehearsal', async () => {
    const { stage, starts } = countedStage(new Error('no free port for the dev server'));
    try {
      await expect(stage.rehearse(provisioningCase([]), 120_000)).rejects.toThrow('no free port');
      expect((await stage.rehearse(provisioningCase([]), 120_000)).status).toBe('succeeded');
      expect(starts()).toBe(2);
    } finally {
      await stage.close();
    }
  });
});
