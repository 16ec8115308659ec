// The interpreter end to end: the shipped provisioning runbook against the local cloud, its
// rollback when a step fails, and compensation on cancellation — each against both dialects of
// the local cloud (spec.md's and the API's current one), so every output is filled in either.
import type { RunReport } from '../../contract/run-messages';
import { progressQuery } from '../../contract/run-messages';
import { DIALECTS } from '../helpers/local-cloud';
import { createVpc, expectEveryOutputFilled, waitForStep } from '../helpers/runbook-fixtures';
import { failedReport, startRunbookStack, type RunbookStack } from '../helpers/runbook-stack';

const FAST = { timeScale: 0.05 };

describe.each(DIALECTS)('provision-production-service (%s dialect)', (dialect) => {
  let stack: RunbookStack;
  let vpcId: string;

  beforeAll(async () => {
    stack = await startRunbookStack({ ...FAST, dialect });
    vpcId = await createVpc(stack);
  }, 120_000);
  afterAll(async () => stack?.close());

  test('creates a READY, PROD service with pooler, attached to the VPC', async () => {
    const handle = await stack.start('provision-production-service.yaml', {
      project_id: stack.projectId,
      name: 'orders',
      vpc_id: vpcId,
    });
    const report: RunReport = await handle.result();
    expect(report.status).toBe('succeeded');
    expect(report.steps.map((s) => [s.id, s.status])).toEqual([
      ['create', 'done'],
      ['ready', 'done'],
      ['attach', 'done'],
      ['attached', 'done'],
      ['pooler', 'done'],
      ['pooler_ready', 'done'],
      ['prod', 'done'],
    ]);
    const serviceId = report.outputs.service_id as string;
    const service = await stack.api.service.get({ project_id: stack.projectId, service_id: serviceId });
    expect(service.status).toBe('READY');
    expect(service.metadata?.environment).toBe('PROD');
    expect(service.vpc_endpoint?.vpc_id).toBe(vpcId);
    expect(service.connection_pooler?.endpoint?.host).toBeTruthy();
    expect(report.secretOutputs).toEqual(['password']);
    expect(typeof report.outputs.password).toBe('string');
    expectEveryOutputFilled(report, 'provision-production-service.yaml');
    expect(report.outputs).toMatchObject({
      service_id: service.service_id,
      vpc_host: service.vpc_endpoint?.host,
      pooler_host: service.connection_pooler?.endpoint?.host,
    });
  }, 60_000);

  test('a failing attach deletes the service it created', async () => {
    const handle = await stack.start('provision-production-service.yaml', {
      project_id: stack.projectId,
      name: 'doomed',
      vpc_id: '999999',
    });
    const report = await failedReport(handle);
    expect(report.status).toBe('failed');
    expect(report.failure).toMatchObject({ stepKey: 'attach', type: 'CLOUD_API_NOT_FOUND' });
    const create = report.steps.find((s) => s.id === 'create');
    expect(create?.status).toBe('compensated');
    expect(report.steps.find((s) => s.id === 'prod')?.status).toBe('pending');
    const services = await stack.api.service.list({ project_id: stack.projectId });
    expect(services.filter((s) => s.name === 'doomed')).toEqual([]);
  }, 60_000);

  test('cancelling mid-run compensates what was done', async () => {
    const handle = await stack.start('provision-production-service.yaml', {
      project_id: stack.projectId,
      name: 'cancelled',
      vpc_id: vpcId,
    });
    // Wait until the create is done and the run is waiting for READY (throws when it never is).
    await waitForStep(handle, 'create', 'done', 30_000);
    await handle.cancel();
    await expect(handle.result()).rejects.toThrow();
    const progress = await handle.query(progressQuery);
    expect(progress.status).toBe('cancelled');
    expect(progress.steps.find((s) => s.id === 'create')?.status).toBe('compensated');
    const services = await stack.api.service.list({ project_id: stack.projectId });
    expect(services.filter((s) => s.name === 'cancelled')).toEqual([]);
  }, 60_000);
});
