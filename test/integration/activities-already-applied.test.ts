// Changes whose answer is lost after they took effect: the retry sees the change in place and
// the run goes on, instead of failing on "already attached" (409) or "already paused" (400) — in
// both dialects of the local cloud (the current one names the attachment `vpc_endpoint` only).
import path from 'node:path';
import type { RunReport } from '../../contract/run-messages';
import { DIALECTS } from '../helpers/local-cloud';
import { createVpc, pollUntil } from '../helpers/runbook-fixtures';
import { startRunbookStack, type RunbookStack } from '../helpers/runbook-stack';

const RUNBOOK = path.resolve(__dirname, '..', 'fixtures', 'kinds', 'stop-and-attach.yaml');

describe.each(DIALECTS)('retry safety of changes (%s dialect)', (dialect) => {
  let stack: RunbookStack;

  beforeAll(async () => {
    stack = await startRunbookStack({ timeScale: 0.02, dialect });
  }, 120_000);
  afterAll(async () => stack?.close());

  test('attach and stop answered with errors after taking effect still complete the run', async () => {
    const project_id = stack.projectId;
    const vpcId = await createVpc(stack, { name: 'net', cidr: '10.1.0.0/16' });
    const created = await stack.api.service.create({ project_id, name: 'lost-answers' });
    const service_id = created.service_id!;
    await pollUntil(
      'the service READY before the run starts',
      async () => (await stack.api.service.get({ project_id, service_id })).status,
      (status) => status === 'READY',
      60_000,
    );
    stack.cloud.cloud.addFaults([
      { action: 'service.attachToVpc', kind: 'applyThenFail', mode: 'error', status: 502, times: 1 },
      { action: 'service.stop', kind: 'applyThenFail', mode: 'drop', times: 1 },
    ]);
    const handle = await stack.start(RUNBOOK, { project_id, service_id, vpc_id: vpcId });
    const report: RunReport = await handle.result();
    expect(report.status).toBe('succeeded');
    const service = await stack.api.service.get({ project_id, service_id });
    expect(service.status).toBe('PAUSED');
    expect(service.vpc_endpoint?.vpc_id).toBe(vpcId);
    const stats = stack.cloud.cloud.stats();
    // Each change was sent once: the retries read the service and found the change in place.
    expect(stats.byAction['service.attachToVpc']?.total).toBe(1);
    expect(stats.byAction['service.stop']?.total).toBe(1);
  }, 60_000);
});
