// Temporal's Web UI as a person sees it, in headless Chromium, against the real `tideline dev`
// (Temporal dev server with its UI, the local cloud, a worker, the codec server handed to the UI
// with --ui-codec-endpoint): a provisioning that fails after creating its service and rolls back
// shows, on the run's page, the decrypted failure message and the step names (activity summaries),
// although Temporal itself holds only ciphertext; the runs list filtered by the TidelineRunbook
// search attribute lists it. A run waiting for approval: the runs list filtered by TidelineState
// finds it, its User Metadata tab says so and gives the exact approve / reject commands (its
// current details), and the Queries tab lists `progress` and shows its answer decoded. Screenshots go to test-artifacts/browser/.
// Without Chromium (scripts/setup-browser.js could not install it) the suite skips and says why
// (fails under TIDELINE_REQUIRE_TOOLS=1).
import { Connection } from '@temporalio/client';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { saveScreenshot, useBrowser } from '../helpers/browser';
import type { StackInfo } from '../../stack/stack-info';
import { RUNBOOK_ATTRIBUTE, STATE_ATTRIBUTE } from '../../contract/search-attributes';
import { runTideline, type CliResult } from '../helpers/cli-process';
import { expectSecretsNotStored, readStoredHistory } from '../helpers/stored-history';
import { pollUntil } from '../helpers/runbook-fixtures';
import { describeWithTools } from '../helpers/tool-requirements';
import { buildDist, REPO_ROOT } from '../helpers/worker-process';
import { startDevCli, type DevCli } from './cli-dev-helpers';

jest.setTimeout(300_000);

const browser = useBrowser();

// No VPC has this id: the attach fails with a 404 (not retried) once the service exists, so the
// run compensates (deletes the service) and fails.
const MISSING_VPC = '99999999';
const FAILURE = `step attach failed: service.attachToVpc failed: HTTP 404 NOT_FOUND: vpc ${MISSING_VPC} not found`;
// The Web UI's timeline labels an activity "<activity type> • <summary>"; the summary is the step's name.
const STEP_NAMES = ['Create the service', 'Wait until the service is READY', 'Attach to the VPC'];
const STEP_LABELS = [
  `service.create • ${STEP_NAMES[0]}`,
  `wait.until • ${STEP_NAMES[1]}`,
  // Calls that change or delete run as local activities (patch localCalls): the UI's timeline
  // labels their markers with the action only (the step name is in the marker's summary).
  'service.attachToVpc',
  'service.delete',
  // The rollback's wait: compensations have no name, so its summary is its step key (stored in
  // plain text too, as the activity id).
  'wait.until • create/undo.service_gone',
];

const FAILED_RUN = `web-ui-failed-${process.pid}`;
const OTHER_RUN = `web-ui-other-${process.pid}`;
const APPROVAL_RUN = `web-ui-approval-${process.pid}`;
// Asks `Go on to the failing step?` at step `ask` without a timeout (then fails on purpose).
const APPROVAL_RUNBOOK = path.join(REPO_ROOT, 'test', 'fixtures', 'kinds', 'approval-open.yaml');

/** `tideline run RUNBOOK … --json` against the dev stack's Temporal, in its local cloud's project. */
async function tideline(info: StackInfo, args: string[]): Promise<CliResult> {
  const project = info.cloud.projects[0]!;
  const run = await runTideline(
    ['run', ...args, '-i', `project_id=${project.id}`, '--address', info.temporal.address, '--json'],
    { timeoutMs: 180_000 },
  );
  if (run.code === null)
    throw new Error(`tideline run ${args.join(' ')} did not end in time:\n${run.stderr}`);
  return run;
}

/** Waits until the page shows `wanted` (generous: the UI loads history and decodes it after the page). */
async function shows(page: Page, wanted: string): Promise<void> {
  await page.getByText(wanted).first().waitFor({ state: 'visible', timeout: 120_000 });
}

describeWithTools('the Web UI of `tideline dev`, in headless Chromium', browser.missing, () => {
  let dev: DevCli | undefined;

  beforeAll(async () => {
    await buildDist();
    dev = await startDevCli(['--time-scale', '0.05']);
  }, 400_000);

  afterAll(async () => {
    dev?.cli.signal('SIGTERM');
    await dev?.cli.done;
  });

  test('a failed, rolled-back provisioning: the decrypted failure and the step names on its page', async () => {
    const { info } = dev!;
    const run = await tideline(info, [
      'runbooks/provision-production-service.yaml',
      ...['-i', 'name=orders', '-i', `vpc_id=${MISSING_VPC}`, '--id', FAILED_RUN],
    ]);
    expect(run.code).toBe(1);
    const result = JSON.parse(run.stdout) as { status: string; steps: { key: string; status: string }[] };
    expect(result).toMatchObject({ status: 'failed', failure: { stepKey: 'attach' } });
    expect(result.steps).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ key: 'create', status: 'compensated' }),
        expect.objectContaining({ key: 'create/undo.delete_service', status: 'done' }),
      ]),
    );

    // Temporal holds ciphertext only: whatever the page shows in plain text came through the codec server.
    const connection = await Connection.connect({ address: info.temporal.address });
    try {
      const stored = await readStoredHistory(connection, FAILED_RUN);
      const failed = stored.history.events?.find((event) => event.workflowExecutionFailedEventAttributes);
      expect(failed?.workflowExecutionFailedEventAttributes?.failure?.message).toBe('Encoded failure');
      expectSecretsNotStored(stored, [`vpc ${MISSING_VPC} not found`, ...STEP_NAMES]);
    } finally {
      await connection.close();
    }

    const page = await browser.newPage();
    try {
      await page.goto(`${info.temporal.webUiUrl}/namespaces/default/workflows/${FAILED_RUN}`);
      await shows(page, FAILURE);
      for (const label of STEP_LABELS) await shows(page, label);
    } finally {
      await saveScreenshot(page, 'web-ui-failed-run');
    }
  });

  test('the runs list filtered by TidelineRunbook shows that run and not a run of another runbook', async () => {
    const { info } = dev!;
    const other = await tideline(info, ['runbooks/stop-dev-services.yaml', '--id', OTHER_RUN]);
    expect(other.code).toBe(0);

    const page = await browser.newPage();
    try {
      // Unfiltered, both runs are listed: the other run's absence below is the filter's doing.
      await page.goto(`${info.temporal.webUiUrl}/namespaces/default/workflows`);
      await shows(page, FAILED_RUN);
      await shows(page, OTHER_RUN);
      const query = `${RUNBOOK_ATTRIBUTE.name}="provision-production-service"`;
      await page.goto(
        `${info.temporal.webUiUrl}/namespaces/default/workflows?query=${encodeURIComponent(query)}`,
      );
      await shows(page, FAILED_RUN);
      await shows(page, RUNBOOK_ATTRIBUTE.name); // the filter, as the page shows it
      expect(await page.getByText(OTHER_RUN).count()).toBe(0);
    } finally {
      await saveScreenshot(page, 'web-ui-runs-by-runbook');
    }
  });

  test('a run waiting for approval: found by TidelineState, says so and how to answer; the Queries tab decodes progress', async () => {
    const { info } = dev!;
    const started = await runTideline(
      [
        'run',
        APPROVAL_RUNBOOK,
        '--id',
        APPROVAL_RUN,
        '--detach',
        '--address',
        info.temporal.address,
        '--json',
      ],
      { timeoutMs: 60_000 },
    );
    expect(started.code).toBe(0);
    // The run asks without a timeout, so once visibility says it waits, it waits until the stack stops.
    const query = `${STATE_ATTRIBUTE.name}="waiting-for-approval"`;
    const connection = await Connection.connect({ address: info.temporal.address });
    try {
      // Read raw: the client's list would decode the memo, which needs the keys.
      await pollUntil(
        `${query} to find ${APPROVAL_RUN}`,
        async () => {
          const { executions } = await connection.workflowService.listWorkflowExecutions({
            namespace: 'default',
            query,
          });
          return (executions ?? []).map((run) => run.execution?.workflowId);
        },
        (ids) => ids.includes(APPROVAL_RUN),
        60_000,
      );
    } finally {
      await connection.close();
    }

    const page = await browser.newPage();
    try {
      await page.goto(
        `${info.temporal.webUiUrl}/namespaces/default/workflows?query=${encodeURIComponent(query)}`,
      );
      await shows(page, APPROVAL_RUN);
      expect(await page.getByText(FAILED_RUN).count()).toBe(0);
      await saveScreenshot(page, 'web-ui-runs-waiting-for-approval');

      // The current details (Markdown the workflow keeps, read through the metadata query and the
      // codec server): UI 2.x shows them on the run's User Metadata tab, each Markdown text rendered
      // in an iframe of its own (title "output"); the commands are a list.
      await page.goto(`${info.temporal.webUiUrl}/namespaces/default/workflows/${APPROVAL_RUN}`);
      await page.getByText('User Metadata', { exact: true }).first().click();
      await shows(page, 'Current Details');
      const details = page.locator('iframe[title="output"][src*="Waiting"]').contentFrame();
      await details.getByText('Waiting for approval').waitFor({ timeout: 120_000 });
      await details.getByText('Go on to the failing step?').waitFor();
      const item = (text: string) => details.getByRole('listitem').filter({ hasText: text });
      await item(`tideline approve ${APPROVAL_RUN} --step ask`).waitFor();
      await item(`tideline reject ${APPROVAL_RUN} --step ask`).waitFor();
      // The static summary: the runbook's name (it has no inputs).
      const summary = page.locator('iframe[title="output"]').first().contentFrame();
      await summary.getByText('approval-open').waitFor();
      await saveScreenshot(page, 'web-ui-waiting-for-approval');

      // The Queries tab lists the run's queries (from __temporal_workflow_metadata, decoded) with
      // `progress` first, and shows its answer in plain text: the pending approval is in it.
      await page.getByText('Queries', { exact: true }).first().click();
      await page.getByRole('button', { name: 'Run Query' }).click();
      await shows(page, '"pendingApproval"');
      await shows(page, '"message": "Go on to the failing step?"');
    } finally {
      await saveScreenshot(page, 'web-ui-queries-tab');
    }
  });
});
