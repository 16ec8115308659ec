// Runs are findable by their search attributes (TidelineRunbook, TidelineProject, TidelineServices,
// TidelineState) through Temporal's own list query, as the Web UI and `temporal workflow list
// --query` find them; a run waiting for an operator says so in TidelineState and in its current
// details, with the exact command; step records name what each step created or acted on.
// Visibility is eventually consistent: every look polls.
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { approvalUpdate, progressQuery, rollbackUpdate } from '../../contract/run-messages';
import {
  PROJECT_ATTRIBUTE,
  RUNBOOK_ATTRIBUTE,
  SERVICES_ATTRIBUTE,
  STATE_ATTRIBUTE,
} from '../../contract/search-attributes';
import { createVpc, pollUntil, reportOf } from '../helpers/runbook-fixtures';
import { failedReport, startRunbookStack, type RunbookStack } from '../helpers/runbook-stack';

const FIXTURES = path.resolve(__dirname, '..', 'fixtures');
/** Generous: visibility lags, and two busy cores make it lag more. */
const VISIBLE_MS = 60_000;

describe('runs found by their search attributes', () => {
  let stack: RunbookStack;
  let vpcId: string;

  beforeAll(async () => {
    stack = await startRunbookStack({ timeScale: 0.05 });
    vpcId = await createVpc(stack);
  }, 240_000);
  afterAll(async () => stack?.close());

  /** The workflow ids the visibility query finds. */
  async function found(query: string): Promise<string[]> {
    const ids: string[] = [];
    for await (const info of stack.client.workflow.list({ query })) ids.push(info.workflowId);
    return ids;
  }

  /** Polls until the query finds the run. */
  function findable(query: string, handle: WorkflowHandle): Promise<string[]> {
    return pollUntil(
      `${query} to find ${handle.workflowId}`,
      () => found(query),
      (ids) => ids.includes(handle.workflowId),
      VISIBLE_MS,
    );
  }

  /** The run's current details, as the Web UI reads them (the SDK's metadata query). */
  async function currentDetails(handle: WorkflowHandle): Promise<string> {
    const metadata = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
    return metadata.currentDetails ?? '';
  }

  test('a provisioning run is found by runbook, project and the service it created', async () => {
    const handle = await stack.start('provision-production-service.yaml', {
      project_id: stack.projectId,
      name: 'findable',
      vpc_id: vpcId,
    });
    const report = await reportOf(handle);
    const serviceId = report.outputs.service_id as string;
    expect(report.steps.find((s) => s.key === 'create')).toMatchObject({
      action: 'service.create',
      resources: [{ type: 'service', id: serviceId, created: true }],
    });
    expect(report.steps.find((s) => s.key === 'attach')?.resources).toEqual(
      expect.arrayContaining([
        { type: 'service', id: serviceId },
        { type: 'vpc', id: vpcId },
      ]),
    );

    await findable(
      `TidelineRunbook = 'provision-production-service' AND TidelineServices = '${serviceId}' AND TidelineState = 'succeeded'`,
      handle,
    );
    await findable(`TidelineProject = '${stack.projectId}'`, handle);
    const attributes = (await handle.describe()).typedSearchAttributes;
    expect(attributes.get(RUNBOOK_ATTRIBUTE)).toBe('provision-production-service');
    expect(attributes.get(PROJECT_ATTRIBUTE)).toBe(stack.projectId);
    expect(attributes.get(SERVICES_ATTRIBUTE)).toEqual([serviceId]);
    expect(attributes.get(STATE_ATTRIBUTE)).toBe('succeeded');
    // Another service's runs are not it.
    expect(await found(`TidelineServices = 'no-such-service'`)).toEqual([]);
  }, 120_000);

  test('a run waiting for approval says so, with the command that answers it', async () => {
    const handle = await stack.start(path.join(FIXTURES, 'kinds', 'approval-open.yaml'), {});
    await findable(`TidelineState = 'waiting-for-approval' AND TidelineRunbook = 'approval-open'`, handle);
    const details = await pollUntil(
      'the details',
      () => currentDetails(handle),
      (d) => d !== '',
      VISIBLE_MS,
    );
    expect(details).toContain('**Waiting for approval** at step `ask`: Go on to the failing step?');
    expect(details).toContain(`tideline approve ${handle.workflowId} --step ask`);
    expect(details).toContain(`tideline reject ${handle.workflowId} --step ask`);

    await handle.executeUpdate(approvalUpdate, { args: [{ approved: true, by: 'test' }] });
    await failedReport(handle); // the fixture fails on purpose after the approval
    await findable(`TidelineState = 'failed' AND TidelineRunbook = 'approval-open'`, handle);
    expect(await found(`TidelineState = 'waiting-for-approval'`)).not.toContain(handle.workflowId);
  }, 120_000);

  test('a held run says so, with retry / skip / rollback commands', async () => {
    stack.cloud.cloud.addFaults({ action: 'service.enablePooler', kind: 'error', status: 503 });
    try {
      const handle = await stack.start(path.join(FIXTURES, 'hold', 'provision-hold.yaml'), {
        project_id: stack.projectId,
        name: 'held-visible',
      });
      await findable(`TidelineState = 'held'`, handle);
      const details = await currentDetails(handle);
      expect(details).toContain('**Held** at step `pooler`');
      expect(details).toContain(`tideline retry ${handle.workflowId} --step pooler`);
      expect(details).toContain(`tideline rollback ${handle.workflowId}`);
      await handle.executeUpdate(rollbackUpdate, { args: [{ by: 'test' }] });
      await failedReport(handle);
      await findable(`TidelineState = 'failed'`, handle);
      expect(await currentDetails(handle)).toBe('');
    } finally {
      stack.cloud.cloud.clearFaults();
    }
  }, 120_000);

  test('a rolled-back run names the service it created and the compensation that deleted it', async () => {
    const handle = await stack.start('provision-production-service.yaml', {
      project_id: stack.projectId,
      name: 'rolled-back',
      vpc_id: '999999',
    });
    const report = await failedReport(handle);
    const create = report.steps.find((s) => s.key === 'create');
    expect(create?.status).toBe('compensated');
    const created = create?.resources?.find((r) => r.created);
    expect(created?.type).toBe('service');
    const undo = report.steps.find((s) => s.compensates === 'create' && s.action === 'service.delete');
    expect(undo).toMatchObject({ status: 'done', resources: [{ type: 'service', id: created?.id }] });
    await findable(`TidelineServices = '${created?.id}' AND TidelineState = 'failed'`, handle);
    // The progress query (while it ran) and the report agree on what was touched.
    expect((await handle.query(progressQuery)).steps.find((s) => s.key === 'create')?.resources).toEqual(
      create?.resources,
    );
  }, 120_000);
});
